import Crypto
import Foundation
import PantryDomain

/// An invite's code, and what the log keeps of it. The code is derived from the invite's command id
/// under a key every API process shares (from the token key), so a retry with the same
/// Idempotency-Key is the same command and gets the same code back; only its SHA-256 reaches the
/// core, and a code is usable once, for a day.
struct InviteCodes: Sendable {
    /// The derived key's bytes (`SymmetricKey` is not `Sendable`).
    private let key: [UInt8]

    init(tokenKey: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: tokenKey, info: Data("pantry household invite codes".utf8), outputByteCount: 32)
            .withUnsafeBytes { Array($0) }
    }

    /// Crockford's base 32 (no I, L, O, U): read aloud or typed from a screen without confusion.
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// 20 characters, 100 bits.
    static let length = 20

    func code(for commandId: CommandID) -> String {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data(commandId.utf8), using: SymmetricKey(data: key)))
        var bits = 0, value = 0, code = ""
        for byte in mac {
            value = (value << 8) | Int(byte); bits += 8
            while bits >= 5, code.count < Self.length {
                bits -= 5
                code.append(Self.alphabet[(value >> bits) & 31])
            }
            value &= (1 << bits) - 1
            if code.count == Self.length { break }
        }
        return code
    }

    /// The code as typed, spaces and dashes ignored and case folded (Crockford's readings of I, L
    /// and O as 1, 1 and 0), or nil when it cannot be a code.
    static func normalized(_ typed: String) -> String? {
        var code = ""
        for character in typed.uppercased() where character != " " && character != "-" {
            switch character {
            case "I", "L": code.append("1")
            case "O": code.append("0")
            default:
                guard alphabet.contains(character) else { return nil }
                code.append(character)
            }
        }
        return code.count == length ? code : nil
    }

    static func digest(_ code: String) -> String {
        SHA256.hash(data: Data(code.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
