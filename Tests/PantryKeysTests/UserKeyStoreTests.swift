import Foundation
@testable import PantryKeys
import PantryTestSupport
import Testing

@Suite struct UserKeyStoreTests {
    func temporaryPath() -> String {
        scratchPath("keys", ".sqlite")
    }

    /// A key is on disk before the events it seals: its commit is synced (FULL), not left to the
    /// next checkpoint as GRDB's default for a pool's writer (NORMAL) would.
    @Test func theKeyFileSyncsEveryCommit() throws {
        let keys = try UserKeyStore(path: temporaryPath(), readOnly: false)
        #expect(try keys.writerPragma("synchronous") == 2)
        #expect(try keys.writerPragma("secure_delete") == 1)
    }

    @Test func sealedFieldsOpenOnlyForTheirUserWithTheirKey() throws {
        let keys = try UserKeyStore(path: temporaryPath(), readOnly: false)
        let sealed = try keys.seal(Array(#"{"email":"zoe@example.org"}"#.utf8), for: "u1")
        #expect(!sealed.contains("zoe"))
        #expect(try keys.open(sealed, for: "u1") == Array(#"{"email":"zoe@example.org"}"#.utf8))
        // The user id is authenticated with the ciphertext: another user's key or id does not open it.
        _ = try keys.seal([1], for: "u2")
        #expect(throws: UserKeyStore.Failure.self) { try keys.open(sealed, for: "u2") }
        #expect(throws: UserKeyStore.Failure.self) { try keys.open("not base64 at all", for: "u1") }
    }

    /// Two threads sealing for a user who has no key yet used to make a key each, the second
    /// replacing the first: what the first sealed then opened with no key.
    @Test func threadsSealingForANewUserAtOnceShareOneKey() async throws {
        let keys = try UserKeyStore(path: temporaryPath(), readOnly: false)
        for round in 0..<400 {
            let user = "u\(round)"
            let sealed = try await withThrowingTaskGroup(of: String.self) { group in
                for value in 0..<16 { group.addTask { try keys.seal([UInt8(value)], for: user) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for box in sealed { #expect(try keys.open(box, for: user) != nil) }
        }
    }

    @Test func aKeyIsDurableOnlyOncePersistedAndAReaderSeesIt() throws {
        let path = temporaryPath()
        let writer = try UserKeyStore(path: path, readOnly: false)
        let sealed = try writer.seal([42], for: "u1")
        let reader = try UserKeyStore(path: path, readOnly: true)
        #expect(try reader.open(sealed, for: "u1") == nil, "a pending key is not on disk yet")
        try writer.persistPending()
        #expect(try reader.open(sealed, for: "u1") == [42])
        // A batch that failed forgets its keys.
        let lost = try writer.seal([7], for: "u2")
        writer.discardPending()
        #expect(try writer.open(lost, for: "u2") == nil)
    }

    @Test func aDestroyedKeyLeavesNoTraceInTheFileOrItsWAL() throws {
        let path = temporaryPath()
        let keys = try UserKeyStore(path: path, readOnly: false)
        let sealed = try keys.seal(Array("secret".utf8), for: "u1")
        try keys.persistPending()
        let stored = try Self.keyBytes(path: path, userId: "u1")
        let key = try #require(stored)
        try keys.destroy(["u1"])
        try keys.destroy(["u1"])   // idempotent
        #expect(try keys.open(sealed, for: "u1") == nil)
        for suffix in ["", "-wal"] {
            let file = (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data()
            #expect(file.range(of: key) == nil, "the key's bytes are still in \(path + suffix)")
        }
    }

    @Test func destroyingOneUsersKeyLeavesTheOthersAndSurvivesReopening() throws {
        let path = temporaryPath()
        let (mine, theirs): (String, String)
        do {
            let keys = try UserKeyStore(path: path, readOnly: false)
            mine = try keys.seal(Array("mine".utf8), for: "u1")
            theirs = try keys.seal(Array("theirs".utf8), for: "u2")
            try keys.persistPending()
            try keys.destroy(["u1"])
        }
        let reopened = try UserKeyStore(path: path, readOnly: true)
        #expect(try reopened.open(mine, for: "u1") == nil)
        #expect(try reopened.open(theirs, for: "u2") == Array("theirs".utf8))
        // A new key for the same id does not open what the old one sealed.
        let writer = try UserKeyStore(path: path, readOnly: false)
        _ = try writer.seal([1], for: "u1")
        try writer.persistPending()
        #expect(throws: UserKeyStore.Failure.self) { try writer.open(mine, for: "u1") }
    }

    @Test func aReaderOfAMissingFileSaysSo() throws {
        let reader = try UserKeyStore(path: temporaryPath(), readOnly: true)
        #expect(throws: UserKeyStore.Failure.self) { try reader.open("AAAA", for: "u1") }
    }

    /// The raw key, read through Python's sqlite3: independently of the code under test.
    static func keyBytes(path: String, userId: String) throws -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys
            row = sqlite3.connect(sys.argv[1]).execute("SELECT key FROM user_keys WHERE user_id = ?", (sys.argv[2],)).fetchone()
            sys.stdout.write(row[0].hex() if row else "")
            """, path, userId]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let hex = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard hex.count == 64 else { return nil }
        var bytes = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
