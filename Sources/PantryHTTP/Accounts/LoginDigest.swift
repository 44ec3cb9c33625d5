import Crypto
import Foundation
import PantryDomain

/// Keyed digests of the names one logs in with (a username's skeleton, an email lower-cased): what
/// the API keeps of every account in memory and in its snapshot instead of the name itself, so
/// that neither holds personal data in the clear. The same digest as the core's name index
/// (`NameKey`), under a key of the API's own: derived from the token key, which every API process
/// of a deployment shares (a snapshot made by one is read by another) and which stays on the
/// API's host, where the core's key file may not be.
struct LoginDigester: Sendable {
    private let key: NameKey

    init(tokenKey: SymmetricKey) {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: tokenKey, info: Data("pantry api login digests".utf8),
                                             outputByteCount: 16)
        key = derived.withUnsafeBytes { NameKey(bytes: Array($0))! }
    }

    /// The digest `account(named:)` looks `login` up by: an email when it has an '@', else a username.
    func digest(login: String) -> NameDigest {
        login.contains("@") ? digest(email: login) : digest(username: login)
    }

    func digest(username: String) -> NameDigest { key.username(username) }

    func digest(email: String) -> NameDigest { key.email(email) }

    /// Tells a snapshot whose digests were made with another key (the token key was replaced):
    /// its digests would find nobody, so it is not used.
    var keyCheck: NameDigest { key.check }
}
