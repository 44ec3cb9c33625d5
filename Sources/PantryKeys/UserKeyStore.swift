import Crypto
import Foundation
import GRDB
import PantryDomain
import Synchronization

/// One AES-256-GCM key per user, in a SQLite file of its own beside the log (`user-keys.sqlite`),
/// sealing the personal fields of that user's events. Deleting an account destroys its key, so
/// those fields become unreadable in the log, which is never rewritten (crypto-shredding).
///
/// The core is the only writer: it makes a user's key when it decides the registration and makes
/// it durable (`persistPending`) before the events that need it are appended. Readers (workers,
/// the API) open the file read-only. Deleted rows are overwritten (`secure_delete`) and the WAL is
/// truncated after a deletion, so no copy of a destroyed key stays in either file.
package final class UserKeyStore: PersonalDataVault, Sendable {
    package enum Failure: Error, CustomStringConvertible {
        case missingFile(String)
        case corrupt(userId: UserID)
        case corruptNameKey

        package var description: String {
            switch self {
            case .missingFile(let path): "the key file \(path) does not exist, though sealed events need it"
            case .corrupt(let userId): "the sealed personal fields of user \(userId) do not open with the user's key"
            case .corruptNameKey: "the key of the username and email index is not 16 bytes"
            }
        }
    }

    package let path: String
    private let readOnly: Bool
    private let database = Mutex<DatabasePool?>(nil)
    /// Keys made for this batch's registrations, not yet durable.
    private let pending = Mutex<[UserID: SymmetricKey]>([:])
    /// The writer's durable keys read so far: every command now seals or keys something (its
    /// Idempotency-Key, a grocery item, a tip), and a query per command cost more than the seal.
    /// Only the writer caches: it is the one that destroys keys, so its cache never outlives one.
    /// (The bytes: a `SymmetricKey` cannot be sent into the mutex.)
    private let durable = Mutex<[UserID: Data]>([:])

    /// The writer (the core) creates the file; a reader opens it when it first needs a key.
    package init(path: String, readOnly: Bool) throws {
        self.path = path
        self.readOnly = readOnly
        if !readOnly { _ = try pool() }
    }

    package func seal(_ plaintext: [UInt8], for userId: UserID) throws -> String {
        try Self.seal(plaintext, for: userId, with: try existingKey(userId) ?? newKey(for: userId))
    }

    /// `seal`, but only with a key the user already has: nil for a user with none (deleted), for
    /// whom no key may be made again.
    package func sealWithExistingKey(_ plaintext: [UInt8], for userId: UserID) throws -> String? {
        // Not cached: the snapshot writer seals on its own thread, and a key it read just before a
        // deletion must not stay in memory after it.
        try existingKey(userId, caching: false).map { try Self.seal(plaintext, for: userId, with: $0) }
    }

    static func seal(_ plaintext: [UInt8], for userId: UserID, with key: SymmetricKey) throws -> String {
        try AES.GCM.seal(plaintext, using: key, authenticating: Data(userId.utf8)).combined!.base64EncodedString()
    }

    /// A command id as the log stores it: an HMAC of the id under the user's key (32 hex digits,
    /// "k-" first), so the client's Idempotency-Key is not in the log, and once the key is destroyed
    /// nothing links the stored id to it. The same id gives the same stored id while the key lives,
    /// which is all the idempotency record needs. Nil for a user without a key, unless `making`
    /// (for a command being appended: a user registered in the clear by an old version gets one).
    package func commandIdAsStored(_ commandId: String, for userId: UserID, making: Bool = false) throws -> String? {
        guard let key = try existingKey(userId) ?? (making ? newKey(for: userId) : nil) else { return nil }
        return "k-" + Self.hex(Self.keyed(Array("pantry command id\u{0}\(commandId)".utf8), with: key).prefix(16))
    }

    /// A command's fingerprint as the log stores it, keyed: an unkeyed hash of a command holding a
    /// short grocery item can be reversed by trying names; this one cannot without the key.
    package func fingerprintAsStored(_ fingerprint: UInt64, for userId: UserID, making: Bool = false) throws -> UInt64? {
        guard let key = try existingKey(userId) ?? (making ? newKey(for: userId) : nil) else { return nil }
        var message = Array("pantry fingerprint\u{0}".utf8)
        withUnsafeBytes(of: fingerprint.littleEndian) { message.append(contentsOf: $0) }
        return Self.keyed(message, with: key).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// HMAC-SHA256 with the user's AES key; the messages start with a purpose, so a value made for
    /// one use never stands for another.
    private static func keyed(_ message: [UInt8], with key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    private func existingKey(_ userId: UserID, caching: Bool = true) throws -> SymmetricKey? {
        if let key = pending.withLock({ $0[userId] }) { return key }
        if let bytes = durable.withLock({ $0[userId] }) { return SymmetricKey(data: bytes) }
        guard let key = try storedKey(userId) else { return nil }
        if caching, !readOnly {
            let bytes = key.withUnsafeBytes { Data($0) }
            durable.withLock { $0[userId] = bytes }
        }
        return key
    }

    /// A new key, unless another thread made one for the user since the caller looked: both must
    /// seal with the same key, or one of them seals what no key opens.
    private func newKey(for userId: UserID) -> SymmetricKey {
        precondition(!readOnly, "a read-only key store cannot make keys")
        return pending.withLock { pending in
            if let made = pending[userId] { return made }
            let key = SymmetricKey(size: .bits256)
            pending[userId] = key
            return key
        }
    }

    package func open(_ sealed: String, for userId: UserID) throws -> [UInt8]? {
        guard let key = try existingKey(userId) else { return nil }
        return try Self.open(sealed, for: userId, with: key)
    }

    static func open(_ sealed: String, for userId: UserID, with key: SymmetricKey) throws -> [UInt8] {
        do {
            guard let combined = Data(base64Encoded: sealed) else { throw Failure.corrupt(userId: userId) }
            return Array(try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key,
                                          authenticating: Data(userId.utf8)))
        } catch {
            throw Failure.corrupt(userId: userId)
        }
    }

    /// Makes the keys sealed since the last call durable, in one transaction.
    package func persistPending() throws {
        let keys = pending.withLock { $0 }
        guard !keys.isEmpty else { return }
        try pool().write { db in
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO user_keys (user_id, key) VALUES (?, ?)")
            for (userId, key) in keys {
                try insert.execute(arguments: [userId, key.withUnsafeBytes { Data($0) }])
            }
        }
        // Only those written: a key made meanwhile (by another thread) stays pending.
        let written = keys.mapValues { key in key.withUnsafeBytes { Data($0) } }
        durable.withLock { durable in durable.merge(written) { _, made in made } }
        pending.withLock { pending in for userId in keys.keys { pending[userId] = nil } }
    }

    /// Forgets keys that were never made durable (their batch failed).
    package func discardPending() {
        pending.withLock { $0.removeAll() }
    }

    /// Destroys the keys of `userIds` for good. Idempotent: the core calls it again at start for
    /// every deleted user, in case it stopped between appending a deletion and destroying the key.
    package func destroy(_ userIds: some Collection<UserID>) throws {
        guard !userIds.isEmpty else { return }
        durable.withLock { durable in for userId in userIds { durable[userId] = nil } }
        let pool = try pool()
        try pool.write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM user_keys WHERE user_id = ?")
            for userId in userIds { try delete.execute(arguments: [userId]) }
        }
        // The WAL still holds the pages as they were before the deletion: truncate it.
        try pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
    }

    /// Every stored key, read in one query, as a vault that opens without asking the file again:
    /// for a start that opens every account (one query per user cost 150 µs each, 1.5 s for
    /// 10,000 users).
    package func keyRing() throws -> KeyRing {
        try KeyRing(keys: pool().read { db in
            var keys: [UserID: Data] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT user_id, key FROM user_keys")
            while let row = try rows.next() { keys[row[0]] = row[1] as Data }
            return keys
        })
    }

    /// Every key read at once (`keyRing`), and this file for a key made since: for opening many
    /// users' fields while the log may still grow (one query per user cost 150 µs).
    ///
    /// The people the erasure ledger beside this file lists (`ErasureLedger`, written before their
    /// keys are destroyed, in the data directory) are known to have none: a rebuild never asks the
    /// file about them, so a log with many deletions replays as fast as one without.
    package func preloaded() throws -> any PersonalDataVault & Sendable {
        let ledger = ErasureLedger(path: URL(fileURLWithPath: path).deletingLastPathComponent()
            .appendingPathComponent(ErasureLedger.fileName).path)
        // Without one (or with one that cannot be read), each person is asked of the file once.
        let erased = Set(((try? ledger.read()) ?? []).map(\.userId))
        return PreloadedKeys(ring: try keyRing(), store: self, destroyed: erased)
    }

    /// The installation's key for the state's username and email index (`NameKey`), made on first
    /// use. Not a user's: a registration is checked against every name, so one key keys them all.
    package func nameKey() throws -> NameKey {
        // The writer's (the core's) only.
        try pool().write { db in
            if let stored = try Data.fetchOne(db, sql: "SELECT key FROM installation_keys WHERE name = 'names'") {
                guard let key = NameKey(bytes: stored) else { throw Failure.corruptNameKey }
                return key
            }
            let bytes = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
            try db.execute(sql: "INSERT INTO installation_keys (name, key) VALUES ('names', ?)", arguments: [bytes])
            return NameKey(bytes: bytes)!
        }
    }

    private func storedKey(_ userId: UserID) throws -> SymmetricKey? {
        try pool().read { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT key FROM user_keys WHERE user_id = ?"), arguments: [userId])
        }.map { SymmetricKey(data: $0) }
    }

    /// A pragma's value on the writer's connection, for the tests.
    func writerPragma(_ name: String) throws -> Int {
        try pool().writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA \(name)") ?? -1 }
    }

    private func pool() throws -> DatabasePool {
        try database.withLock { database in
            if let database { return database }
            let readOnly = self.readOnly
            if readOnly, !FileManager.default.fileExists(atPath: path) { throw Failure.missingFile(path) }
            var configuration = Configuration()
            configuration.readonly = readOnly
            configuration.label = "user-keys"
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            if !readOnly {
                // GRDB sets `synchronous = NORMAL` on the pool's writer after `prepareDatabase`;
                // a key must be on disk before the events it seals are.
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                try pool.write { db in
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS user_keys (user_id TEXT PRIMARY KEY, key BLOB NOT NULL) WITHOUT ROWID")
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS installation_keys (name TEXT PRIMARY KEY, key BLOB NOT NULL) WITHOUT ROWID")
                }
            }
            database = pool
            return pool
        }
    }
}

private final class PreloadedKeys: PersonalDataVault, Sendable {
    let ring: KeyRing
    let store: UserKeyStore
    /// Users whose key was destroyed (a deletion): those the erasure ledger listed, and those the
    /// file had no key for when asked (a destroyed key never comes back). Each of a deleted
    /// person's sealed events otherwise cost a query of the file, which made a replay of the
    /// experiences 4.3 times slower after 5,000 deletions (issue 45: 1.24 -> 5.36 s at a million events).
    private let destroyed: Mutex<Set<UserID>>

    init(ring: KeyRing, store: UserKeyStore, destroyed: Set<UserID>) {
        self.ring = ring
        self.store = store
        self.destroyed = Mutex(destroyed)
    }

    func seal(_ plaintext: [UInt8], for userId: UserID) throws -> String {
        try store.seal(plaintext, for: userId)
    }

    func open(_ sealed: String, for userId: UserID) throws -> [UInt8]? {
        if let opened = try ring.open(sealed, for: userId) { return opened }
        // A key made since the ring was read is in the file; a destroyed one is asked for once.
        guard !destroyed.withLock({ $0.contains(userId) }) else { return nil }
        guard let opened = try store.open(sealed, for: userId) else {
            destroyed.withLock { _ = $0.insert(userId) }
            return nil
        }
        return opened
    }
}
