import Foundation
import Crypto
import PantryDomain

/// The keys of a `UserKeyStore` as they were when read (`keyRing()`), held in memory: it opens
/// sealed fields only, and only those of users whose key existed then.
package struct KeyRing: PersonalDataVault, Sendable {
    /// The keys' bytes: Crypto's `SymmetricKey` is not `Sendable`, and a ring is shared by threads.
    private let keys: [UserID: Data]

    init(keys: [UserID: Data]) {
        self.keys = keys
    }

    package struct CannotSeal: Error, CustomStringConvertible {
        package var description: String { "a key ring only opens; seal through the key store" }
    }

    package func seal(_ plaintext: [UInt8], for userId: UserID) throws -> String {
        throw CannotSeal()
    }

    package func open(_ sealed: String, for userId: UserID) throws -> [UInt8]? {
        guard let key = keys[userId] else { return nil }
        return try UserKeyStore.open(sealed, for: userId, with: SymmetricKey(data: key))
    }
}
