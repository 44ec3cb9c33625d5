import Crypto
import Foundation
import PantryDomain

/// A keyed hash of a name one logs in with (a username's skeleton, or an email lower-cased): what
/// the API keeps of every account in memory and in its snapshot instead of the name itself, so
/// that neither holds personal data in the clear. 128 bits: no two of a million names share one.
struct LoginDigest: Hashable, Sendable {
    var high: UInt64
    var low: UInt64
}

/// Makes `LoginDigest`s with a key derived from the API's token key, which every API process of a
/// deployment shares (a snapshot made by one is read by another) and which stays on the API's host.
struct LoginDigester: Sendable {
    // Raw bytes: `SymmetricKey` is not Sendable in this swift-crypto.
    private let keyBytes: Data

    init(tokenKey: SymmetricKey) {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: tokenKey, info: Data("pantry api login digests".utf8),
                                             outputByteCount: 32)
        keyBytes = derived.withUnsafeBytes { Data($0) }
    }

    /// The digest `account(named:)` looks `login` up by: an email when it has an '@', else a username.
    func digest(login: String) -> LoginDigest {
        login.contains("@") ? digest(email: login) : digest(username: login)
    }

    /// Look-alikes of a name are one name (`Username.skeleton`).
    func digest(username: String) -> LoginDigest { digest("u:" + Username.skeleton(username)) }

    func digest(email: String) -> LoginDigest { digest("e:" + email.lowercased()) }

    /// Tells a snapshot whose digests were made with another key (the token key was replaced):
    /// its digests would find nobody, so it is not used.
    var keyCheck: LoginDigest { digest("key check") }

    private func digest(_ text: String) -> LoginDigest {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: keyBytes)))
        func word(_ from: Int) -> UInt64 { mac[from..<(from + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        return LoginDigest(high: word(0), low: word(8))
    }
}
