import Foundation
import Logging
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing

@Suite struct CoreSnapshotTests {
    private func openProcessor(_ dir: URL, snapshotEvery: Int64 = 10) throws -> CommandProcessor {
        try PantryCoreTests.openProcessor(dir, snapshotEvery: snapshotEvery)
    }

    /// Every kind of state: accounts (one with a changed password, one deleted), points, favourites,
    /// groceries checked and not, cart lines, password reset links (one used up by the change).
    private func history(_ processor: CommandProcessor, from n: Int) {
        var commands: [CommandEnvelope] = []
        for u in n..<(n + 4) {
            commands += [
                envelope("reg-\(u)", register("u\(u)")),
            ]
            commands += cooking("cook0-\(u)", "u\(u)", "r0") + cooking("cook1-\(u)", "u\(u)", "r1")
            commands += [
                envelope("use-\(u)", use("u\(u)", "r\(u % 2)", "flour")),
                envelope("save-\(u)", save("u\(u)", "r\(u)")),
                envelope("cart-\(u)", cart("u\(u)", "r1", 2)),
                envelope("grocery-\(u)", addGrocery("u\(u)", "Eggs")),
                envelope("revoke-\(u)", .revokeSession(RevokeSession(userId: "u\(u)", tokenId: "t\(u)", expiresAt: 4_102_444_800))),
                envelope("reset-\(u)", .requestPasswordReset(RequestPasswordReset(userId: "u\(u)", tokenDigest: Self.resetDigest))),
            ]
            if u % 2 == 0 { commands.append(envelope("check-\(u)", .checkGrocery(CheckGrocery(userId: "u\(u)", ingredient: "eggs", checked: true)))) }
        }
        commands += [
            envelope("password-\(n)", .changePassword(ChangePassword(userId: "u\(n)", passwordHash: phcHash + "x"))),
            envelope("delete-\(n + 1)", .deleteUser(DeleteUser(userId: "u\(n + 1)"))),
        ]
        let refused = processor.process(commands).filter { $0.status != .accepted }
        #expect(refused.isEmpty, "\(refused)")
    }

    static let resetDigest = String(repeating: "5e", count: 32)

    private func snapshotPosition(_ dir: URL) throws -> Int64 {
        let data = try Data(contentsOf: dir.appendingPathComponent("core.snapshot"))
        let header = Array("PANTRY-CORE-SNAPSHOT\n".utf8).count + 8
        return data[header..<(header + 8)].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
    }

    @Test func aStartFromTheSnapshotAndTheTailHasTheStateOfTheWholeLog() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir)
            history(processor, from: 0)
            processor.waitForSnapshot()
            let snapshot = dir.appendingPathComponent("core.snapshot")
            let earlier = try Data(contentsOf: snapshot)
            #expect(try snapshotPosition(dir) == processor.head)
            // More after that snapshot: the tail a start folds.
            history(processor, from: 10)
            processor.waitForSnapshot()
            try earlier.write(to: snapshot)
            let earlierPosition = try snapshotPosition(dir)
            #expect(earlierPosition < processor.head)
            let folded = try foldedState(processor.store, keys: processor.keys)
            #expect(folded == processor.state)

            let reopened = try openProcessor(dir, snapshotEvery: 10_000)
            #expect(reopened.loadedFromSnapshot == earlierPosition)
            try reopened.openAllHoldings()
            #expect(reopened.state == folded)
            #expect(reopened.head == processor.head)
            // Stream versions and the idempotency record carried over: more commands append, retries repeat.
            #expect(reopened.process([envelope("more", use("u0", "r1", "salt"))]).first?.status == .accepted)
            #expect(reopened.process([envelope("use-0", use("u0", "r0", "flour"))]).first?.duplicate == true)
            #expect(reopened.process([envelope("reg-12", register("u1"))]).first?.code == .rejection(.commandIdReused))
            // The revoked sessions carried over: a second refresh of a token revoked before the snapshot is refused.
            let again = envelope("revoke-again-0", .revokeSession(RevokeSession(userId: "u0", tokenId: "t0", expiresAt: 4_102_444_800)))
            #expect(reopened.process([again]).first?.code == .rejection(.alreadyRevoked))
            // The reset links carried over: u0's was used up by its change of password, u2's still works once.
            let reset = { (user: String, id: String) in
                envelope(id, .resetPassword(ResetPassword(userId: user, tokenDigest: Self.resetDigest, passwordHash: phcHash)))
            }
            #expect(reopened.process([reset("u0", "reset-again-0")]).first?.code == .rejection(.resetTokenUsed))
            #expect(reopened.process([reset("u2", "reset-again-2")]).first?.status == .accepted)
        }
    }

    @Test func theSnapshotHoldsNoPersonalData() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir)
            history(processor, from: 0)
            processor.waitForSnapshot()
            let bytes = try Data(contentsOf: dir.appendingPathComponent("core.snapshot"))
            #expect(bytes.count > 100)
            for secret in ["user_u0", "u0@example.org", "$scrypt$"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the snapshot")
            }
        }
    }

    @Test func aDamagedOrForeignSnapshotIsIgnoredAndTheLogFolded() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir)
            history(processor, from: 0)
            history(processor, from: 10)
            processor.waitForSnapshot()
            let folded = try foldedState(processor.store, keys: processor.keys)
            let snapshot = dir.appendingPathComponent("core.snapshot")

            var damaged = try Data(contentsOf: snapshot)
            damaged[damaged.count / 2] ^= 0xFF
            try damaged.write(to: snapshot)
            let afterDamage = try openProcessor(dir, snapshotEvery: 10_000)
            #expect(afterDamage.loadedFromSnapshot == 0 && afterDamage.state == folded)

            // The snapshot of a shorter log: at its position this log holds another command.
            try withTemporaryDirectory { other in
                let foreign = try openProcessor(other)
                history(foreign, from: 100)
                foreign.waitForSnapshot()
                try? FileManager.default.removeItem(at: snapshot)
                try FileManager.default.copyItem(at: other.appendingPathComponent("core.snapshot"), to: snapshot)
                #expect(try snapshotPosition(dir) <= processor.head)
                let afterForeign = try openProcessor(dir, snapshotEvery: 10_000)
                #expect(afterForeign.loadedFromSnapshot == 0 && afterForeign.state == folded)
            }
        }
    }

    /// The snapshot holds each grocery list sealed with its user's key: not readable in the file,
    /// read back at start, and gone with the key.
    @Test func theSnapshotHoldsGroceryListsOnlySealed() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir, snapshotEvery: 3)
            _ = processor.process([envelope("c1", register("u1")), envelope("c2", register("u2")),
                                   envelope("c3", addGrocery("u1", "Insulin pens")), envelope("c4", addGrocery("u2", "Milk"))])
            processor.waitForSnapshot()
            let file = try Data(contentsOf: dir.appendingPathComponent("core.snapshot"))
            #expect(file.range(of: Data("insulin pen".utf8)) == nil && file.range(of: Data("milk".utf8)) == nil)
            let groceries = processor.state.holdings.groceries
            let reopened = try openProcessor(dir, snapshotEvery: 1_000)
            #expect(reopened.loadedFromSnapshot == 4)
            #expect(reopened.state.holdings.groceries.isEmpty, "opened when their users' first command comes")
            try reopened.openAllHoldings()
            #expect(reopened.state.holdings.groceries == groceries)
            // Without u1's key the snapshot still loads; u1's list is simply not in it.
            try reopened.keys.destroy(["u1"])
            let withoutKey = try openProcessor(dir, snapshotEvery: 1_000)
            #expect(withoutKey.loadedFromSnapshot == 4)
            try withoutKey.openAllHoldings()
            #expect(withoutKey.state.holdings.groceries["u1"] == nil && withoutKey.state.holdings.groceries["u2"] == groceries["u2"])
        }
    }

    /// A snapshot of the format before grocery lists were sealed holds them in the clear: a start
    /// folds the log instead and removes it, rather than keep it until the next snapshot.
    @Test func aSnapshotOfTheFormatBeforeIsRemovedAtStart() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir, snapshotEvery: 3)
            _ = processor.process([envelope("c1", register("u1")), envelope("c2", addGrocery("u1", "Insulin pens")),
                                   envelope("c3", addGrocery("u1", "Milk"))])
            processor.waitForSnapshot()
            let file = dir.appendingPathComponent("core.snapshot")
            let written = [UInt8](try Data(contentsOf: file))
            // Format 1 (grocery lists in the clear), and 4, the one before the name index was stored.
            for older: UInt8 in [1, 4] {
                var bytes = written
                let format = Array("PANTRY-CORE-SNAPSHOT\n".utf8).count
                bytes[format] = older // as that version wrote it (the checksum is not reached)
                try Data(bytes).write(to: file)
                let reopened = try openProcessor(dir, snapshotEvery: 1_000)
                #expect(reopened.loadedFromSnapshot == 0 && reopened.state == processor.state, "format \(older)")
                #expect(!FileManager.default.fileExists(atPath: file.path), "format \(older)")
            }
        }
    }
}
