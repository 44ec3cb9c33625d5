import PantryDomain
import PantryKeys

/// The key ring (every key, read at once), read when the first sealed field is opened: a start from
/// a snapshot at the head opens none, and a million keys took a large part of the start.
final class KeyRingOnDemand: PersonalDataVault {
    private let keys: UserKeyStore
    private var ring: KeyRing?

    init(_ keys: UserKeyStore) { self.keys = keys }

    func seal(_ plaintext: [UInt8], for userId: UserID) throws -> String {
        try loaded().seal(plaintext, for: userId)
    }

    func open(_ sealed: String, for userId: UserID) throws -> [UInt8]? {
        try loaded().open(sealed, for: userId)
    }

    func preloaded() throws -> any PersonalDataVault & Sendable { try loaded() }

    private func loaded() throws -> KeyRing {
        if let ring { return ring }
        let read = try keys.keyRing()
        ring = read
        return read
    }
}
