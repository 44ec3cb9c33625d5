import _CryptoExtras
import Crypto
import Foundation

/// scrypt password hashes in the PHC string format `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`
/// (unpadded standard base64). Only this string ever leaves the API process, in `RegisterUser`.
package struct PasswordHasher: Sendable {
    package var logN: Int
    package var blockSize: Int
    package var parallelism: Int
    package static let saltBytes = 16
    package static let hashBytes = 32
    package static let passwordLengths = 8...128
    /// The costs `verify` accepts, so a hostile or corrupt hash cannot cost unbounded time or memory.
    package static let logNRange = 10...20

    package init(logN: Int = 15, blockSize: Int = 8, parallelism: Int = 1) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    @available(*, noasync, message: "use hash(_:for:), which runs on the hashing pool")
    package func hash(_ password: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let key = try Self.derive(password, salt: salt, logN: logN, blockSize: blockSize, parallelism: parallelism)
        return "$scrypt$ln=\(logN),r=\(blockSize),p=\(parallelism)$\(PHCBase64.encode(salt))$\(PHCBase64.encode(key))"
    }

    /// False for a wrong password and for a string that is not a hash this hasher can check.
    @available(*, noasync, message: "use verify(_:against:for:), which runs on the hashing pool")
    package func verify(_ password: String, against phc: String) -> Bool {
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt",
              let salt = PHCBase64.decode(parts[3]), let expected = PHCBase64.decode(parts[4]), !expected.isEmpty
        else { return false }
        var parameters: [Substring: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let value = Int(kv[1]) else { return false }
            parameters[kv[0]] = value
        }
        guard let ln = parameters["ln"], Self.logNRange.contains(ln),
              let r = parameters["r"], (1...32).contains(r),
              let p = parameters["p"], (1...4).contains(p),
              let actual = try? Self.derive(password, salt: salt, logN: ln, blockSize: r, parallelism: p,
                                            outputBytes: expected.count)
        else { return false }
        return constantTimeEquals(actual, expected)
    }

    private static func derive(_ password: String, salt: [UInt8], logN: Int, blockSize: Int, parallelism: Int,
                               outputBytes: Int = hashBytes) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: outputBytes,
            rounds: 1 << logN, blockSize: blockSize, parallelism: parallelism,
            maxMemory: 130 * (1 << logN) * blockSize * parallelism + (1 << 20))
        return key.withUnsafeBytes { Array($0) }
    }

    private func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension PasswordHasher {
    /// Hashing takes tens of milliseconds and 32 MiB: it runs on a pool of its own (see
    /// `PasswordHashingPool`), so logins cannot starve request handling or exhaust memory.
    private static let pool = PasswordHashingPool()

    /// Bounds the hashing queue to what the pool finishes in `wait`, one hash taking `oneHash`;
    /// returns the bound.
    package static func limitQueue(toWait wait: Duration, oneHash: Duration) -> Int {
        pool.limitQueue(toWait: wait, oneHash: oneHash)
    }

    /// Throws `PasswordHashingPool.Busy` when too many hashes already wait (`client`: who asks,
    /// for the queue's fairness; nil for the API itself).
    package func hash(_ password: String, for client: String?) async throws -> String {
        try await Self.pool.run(client: client) { try self.hash(password) }
    }

    /// Throws `PasswordHashingPool.Busy` when too many hashes already wait.
    /// `first`: a known device's log-in, ahead of the others (`PasswordHashingPool.run`).
    package func verify(_ password: String, against phc: String, for client: String?, first: Bool = false) async throws -> Bool {
        try await Self.pool.run(client: client, first: first) { self.verify(password, against: phc) }
    }
}

/// PHC strings use standard base64 without padding.
enum PHCBase64 {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        padded += String(repeating: "=", count: (4 - padded.count % 4) % 4)
        return Data(base64Encoded: padded).map(Array.init)
    }
}
