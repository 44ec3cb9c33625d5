import Foundation
import Logging
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing

/// The snapshot's form since format 3: the accounts as their names' keyed digests, nothing read
/// back from the log at a start; since format 4 each user's holdings (grocery list included)
/// decoded on their first command.
@Suite struct CoreSnapshotNamesTests {
    private func openProcessor(_ dir: URL, snapshotEvery: Int64 = 1_000) throws -> CommandProcessor {
        try PantryCoreTests.openProcessor(dir, snapshotEvery: snapshotEvery)
    }

    private func registerAs(_ userId: UserID, _ username: String, _ email: String) -> Command {
        .registerUser(RegisterUser(userId: userId, username: username, email: email, passwordHash: phcHash))
    }

    /// Three users with groceries, written to a snapshot at the head by a processor that stopped.
    private func snapshotAtHead(_ dir: URL) throws -> (head: Int64, state: PantryState) {
        let processor = try openProcessor(dir, snapshotEvery: 7)
        let outcomes = processor.process([
            envelope("r1", registerAs("u1", "alice", "alice@example.org")),
            envelope("r2", registerAs("u2", "bob", "bob@example.org")),
            envelope("r3", registerAs("u3", "carol", "carol@example.org")),
            envelope("g1", addGrocery("u1", "Insulin pens")), envelope("g2", addGrocery("u2", "Milk")),
            envelope("g3", addGrocery("u3", "Eggs")),
            envelope("p1", .changePassword(ChangePassword(userId: "u2", passwordHash: phcHash + "x"))),
        ])
        #expect(outcomes.allSatisfy { $0.status == .accepted }, "\(outcomes)")
        processor.waitForSnapshot()
        return (processor.head, processor.state)
    }

    @Test func aStartFromTheSnapshotAtTheHeadHasTheFoldedStateWithoutReadingTheLog() throws {
        try withTemporaryDirectory { dir in
            let (head, state) = try snapshotAtHead(dir)
            let reopened = try openProcessor(dir)
            #expect(reopened.loadedFromSnapshot == head && reopened.head == head)
            #expect(reopened.state.users == state.users && reopened.state.usernames == state.usernames
                    && reopened.state.emails == state.emails)
            try reopened.openAllHoldings()
            #expect(reopened.state == state)
            #expect(try foldedState(reopened.store, keys: reopened.keys) == reopened.state)
        }
    }

    @Test func aUsernameOrEmailTakenBeforeTheSnapshotIsStillRefusedAfterTheRestart() throws {
        try withTemporaryDirectory { dir in
            let (head, _) = try snapshotAtHead(dir)
            let reopened = try openProcessor(dir)
            #expect(reopened.loadedFromSnapshot == head)
            // A look-alike of "alice" (Cyrillic а), another case of the email.
            #expect(reopened.process([envelope("x1", registerAs("u9", "\u{430}lice", "new@example.org"))]).first?.code == .rejection(.usernameTaken))
            #expect(reopened.process([envelope("x2", registerAs("u9", "dave", "BOB@example.org"))]).first?.code == .rejection(.emailTaken))
            #expect(reopened.process([envelope("x3", registerAs("u1", "erin", "erin@example.org"))]).first?.code == .rejection(.userExists))
            #expect(reopened.process([envelope("x4", registerAs("u9", "dave", "dave@example.org"))]).first?.status == .accepted)
        }
    }

    @Test func aDeletedUserIsNotFoundAfterARestartFromTheSnapshot() throws {
        try withTemporaryDirectory { dir in
            _ = try snapshotAtHead(dir)
            let digests: [Data]
            do {
                let processor = try openProcessor(dir)
                digests = nameDigests(processor.state.nameKey, username: "alice", email: "alice@example.org")
                let file = try Data(contentsOf: dir.appendingPathComponent("core.snapshot"))
                #expect(digests.allSatisfy { file.range(of: $0) != nil }, "the digests are what the file holds")
                #expect(processor.process([envelope("d1", .deleteUser(DeleteUser(userId: "u1")))]).first?.status == .accepted)
                // A deletion is followed by a snapshot, so the user's digests leave the file.
                processor.waitForSnapshot()
            }
            let file = try Data(contentsOf: dir.appendingPathComponent("core.snapshot"))
            #expect(digests.allSatisfy { file.range(of: $0) == nil }, "a deleted user's digests left the file")
            let reopened = try openProcessor(dir)
            #expect(reopened.loadedFromSnapshot == reopened.head)
            #expect(reopened.state.users["u1"] == nil && reopened.state.deletedUsers.contains("u1"))
            #expect(reopened.process([envelope("x1", save("u1", "r1"))]).first?.code == .rejection(.unknownUser))
            try reopened.openAllHoldings()
            #expect(reopened.state.groceries["u1"] == nil && reopened.state.groceries["u2"] != nil)
            // The name and the email are free again.
            #expect(reopened.process([envelope("x2", registerAs("u7", "alice", "alice@example.org"))]).first?.status == .accepted)
        }
    }

    /// Format 5 stores the name index: a name of the stored index freed after the restart is free,
    /// and once taken again it is refused after the next restart (whose snapshot merged the two).
    @Test func aStoredNameFreedAfterTheRestartIsFreeAndTakenAgainAcrossTheNext() throws {
        try withTemporaryDirectory { dir in
            _ = try snapshotAtHead(dir)
            let reopened = try openProcessor(dir, snapshotEvery: 1)
            #expect(reopened.loadedFromSnapshot == reopened.head)
            // One at a time, each snapshot on disk before the next (one being written skips the next).
            for (id, command) in [("d1", Command.deleteUser(DeleteUser(userId: "u2"))), ("x1", registerAs("u8", "BOB", "bob@example.org")),
                                  ("x2", registerAs("u9", "erin", "erin@example.org"))] {
                #expect(reopened.process([envelope(id, command)]).first?.status == .accepted, "\(id)")
                reopened.waitForSnapshot()
            }
            let again = try openProcessor(dir)
            #expect(again.loadedFromSnapshot == again.head && again.head == reopened.head)
            #expect(again.state.usernames == reopened.state.usernames && again.state.emails == reopened.state.emails)
            #expect(again.process([envelope("y1", registerAs("u10", "bob", "other@example.org"))]).first?.code == .rejection(.usernameTaken))
            #expect(again.process([envelope("y2", registerAs("u10", "other", "ERIN@example.org"))]).first?.code == .rejection(.emailTaken))
            #expect(again.process([envelope("y3", registerAs("u10", "alice", "x@example.org"))]).first?.code == .rejection(.usernameTaken))
            try again.openAllHoldings()
            #expect(try foldedState(again.store, keys: again.keys) == again.state)
        }
    }

    @Test func aGroceryListIsOpenedBeforeItsUsersFirstCommand() throws {
        try withTemporaryDirectory { dir in
            let (_, state) = try snapshotAtHead(dir)
            let reopened = try openProcessor(dir)
            #expect(reopened.state.groceries.isEmpty)
            let outcomes = reopened.process([envelope("c1", .checkGrocery(CheckGrocery(userId: "u2", ingredient: "milk", checked: true))),
                                             envelope("c2", .removeGrocery(RemoveGrocery(userId: "u3", ingredient: "eggs")))])
            #expect(outcomes.allSatisfy { $0.status == .accepted }, "\(outcomes)")
            #expect(reopened.state.groceries["u2"] == ["milk": true] && reopened.state.groceries["u3"] == [:])
            #expect(reopened.state.groceries["u1"] == nil, "not opened: no command of u1")
            // Written back: a list still sealed is kept as it was, an opened one sealed again.
            reopened.process([envelope("c3", addGrocery("u3", "Flour"))])
            try reopened.openAllHoldings()
            #expect(reopened.state.groceries["u1"] == state.groceries["u1"])
            #expect(try foldedState(reopened.store, keys: reopened.keys) == reopened.state)
        }
    }

    /// Format 4: each user's holdings stay undecoded at a start, are decoded before that user's
    /// first command, which is decided as before the restart, and the undecoded ones are written
    /// back into the next snapshot as they were read.
    @Test func aUsersHoldingsAreDecodedBeforeTheirFirstCommandAndKeptUndecodedOtherwise() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir, snapshotEvery: 8)
            let outcomes = processor.process([
                envelope("r1", register("u1")), envelope("r2", register("u2")),
                envelope("s1", save("u1", "r1")), envelope("s2", save("u2", "r2")),
                envelope("c1", cart("u1", "r1", 2)), envelope("c2", cart("u2", "r2", 1)),
            ])
            #expect(outcomes.allSatisfy { $0.status == .accepted }, "\(outcomes)")
            processor.waitForSnapshot()
            let reopened = try openProcessor(dir, snapshotEvery: 1)
            #expect(reopened.loadedFromSnapshot == processor.head)
            #expect(reopened.state.savedRecipes.isEmpty && reopened.state.carts.isEmpty, "nothing decoded at the start")
            // Saved before the restart: saving it again is refused, as it was before.
            #expect(reopened.process([envelope("s3", save("u1", "r1"))]).first?.code == .rejection(.alreadySaved))
            #expect(reopened.state.savedRecipes["u1"] == ["r1"] && reopened.state.carts["u1"] == ["r1": 2])
            #expect(reopened.state.savedRecipes["u2"] == nil, "not decoded: no command of u2")
            // One more event: a snapshot at once (every event here), u2's holdings in it as read.
            #expect(reopened.process([envelope("c3", cart("u1", "r1", 1))]).first?.status == .accepted)
            reopened.waitForSnapshot()
            let again = try openProcessor(dir)
            #expect(again.loadedFromSnapshot == reopened.head)
            try again.openAllHoldings()
            #expect(again.state.carts["u2"] == ["r2": 1] && again.state.carts["u1"] == ["r1": 3])
            #expect(try foldedState(again.store, keys: again.keys) == again.state)
        }
    }

    @Test func aSnapshotDamagedOrMadeWithAnotherNameKeyIsRefusedAndTheLogFolded() throws {
        try withTemporaryDirectory { dir in
            let (_, state) = try snapshotAtHead(dir)
            let snapshot = dir.appendingPathComponent("core.snapshot")
            let good = try Data(contentsOf: snapshot)
            for cut in [good.count - 1, good.count / 2, 40] {
                try good.prefix(cut).write(to: snapshot)
                let reopened = try openProcessor(dir)
                #expect(reopened.loadedFromSnapshot == 0 && reopened.state == state, "cut at \(cut)")
            }
            var flipped = good
            flipped[flipped.count - 40] ^= 1
            try flipped.write(to: snapshot)
            #expect(try openProcessor(dir).loadedFromSnapshot == 0)

            // Another name key (the key file replaced): its digests would let taken names through.
            try good.write(to: snapshot)
            let keysFile = dir.appendingPathComponent("events.sqlite.keys").path
            let keys = try UserKeyStore(path: keysFile, readOnly: false)
            _ = try keys.nameKey()
            try replaceNameKey(keysFile)
            let reopened = try openProcessor(dir)
            #expect(reopened.loadedFromSnapshot == 0)
            #expect(reopened.process([envelope("x1", registerAs("u9", "alice", "new@example.org"))]).first?.code == .rejection(.usernameTaken))
        }
    }

    /// Format 5 searches its stored keys by halves: a file whose keys are out of order, even with a
    /// checksum that matches (a writer's bug, not damage), is refused and the log folded.
    @Test func aSnapshotWhoseStoredKeysAreOutOfOrderIsRefusedEvenWithAMatchingChecksum() throws {
        try withTemporaryDirectory { dir in
            let (_, state) = try snapshotAtHead(dir)
            let snapshot = dir.appendingPathComponent("core.snapshot")
            var bytes = [UInt8](try Data(contentsOf: snapshot))
            // The stream versions' keys lie back to back: swap the first two (same length, so the
            // offsets still hold), then checksum the file again.
            let inOrder = Array("user-u1user-u2".utf8)
            let at = try #require(bytes.indices.first { bytes[$0...].starts(with: inOrder) })
            bytes.replaceSubrange(at..<(at + inOrder.count), with: Array("user-u2user-u1".utf8))
            let body = Array(bytes.dropLast(32))
            bytes = body + (try sha256(body))
            try Data(bytes).write(to: snapshot)
            let reopened = try openProcessor(dir)
            #expect(reopened.loadedFromSnapshot == 0 && reopened.state == state)
        }
    }

    private func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        process.standardOutput = output
        try process.run()
        let hex = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
        process.waitUntilExit()
        return stride(from: 0, to: 64, by: 2).map { offset in
            UInt8(hex[hex.index(hex.startIndex, offsetBy: offset)..<hex.index(hex.startIndex, offsetBy: offset + 2)], radix: 16)!
        }
    }

    private func replaceNameKey(_ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "UPDATE installation_keys SET key = zeroblob(16) WHERE name = 'names'"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
