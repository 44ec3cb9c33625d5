import Foundation
import GRDB
import Testing
@testable import PantryProjections

/// `ProjectionStore.adopt`: how a running worker swaps in the rebuild `pantry replay` left.
@Suite struct RebuildSwapTests {
    /// Empties every table of the projection but the checkpoint: a live file gone wrong.
    private func damage(_ store: ProjectionStore) throws {
        try store.write { db in
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('checkpoint') AND name NOT LIKE 'grdb%'
                """)
            for table in tables { try db.execute(sql: "DELETE FROM \"\(table)\"") }
        }
    }

    @Test func aRunningStoreAdoptsAnOlderRebuildCaughtUpToItsOwnPositionInPlace() throws {
        let h = try smallHistory()
        let head = try h.log.headPosition()
        let expected = try h.caughtUp(CartsProjection()).checksum()
        let directory = h.directory.appendingPathComponent("live")
        let live = try ProjectionStore.open(name: "carts", directory: directory, keys: h.keys)
        try live.apply(h.events())
        try damage(live)
        #expect(try live.checksum() != expected)
        // Another process's reader, open before the swap, as `pantry status` or a backup may be.
        let reader = try DatabaseQueue(path: live.path)
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM cart_lines") } == 0)

        let liveURL = URL(fileURLWithPath: live.path)
        let report = try Replayer.rebuild(CartsProjection(), directory: directory, from: h.log, keys: h.keys,
                                          through: head - 10, swap: false)
        #expect(report.checkpoint == head - 10)
        let rebuilt = try Replayer.finishRebuild(of: liveURL)
        #expect(try live.adopt(rebuilt: rebuilt, catchingUpFrom: h.log, through: head) == head)

        #expect(try live.checksum() == expected)
        #expect(try live.checkpoint == head)
        #expect(try reader.read { try Int64.fetchOne($0, sql: "SELECT position FROM checkpoint") } == head)
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM cart_lines") }! > 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".rebuil") }
        #expect(left.isEmpty)
        // It goes on as before: what it holds is skipped, and a reopened file has the same state.
        #expect(try live.apply(h.events()) == 0)
        try live.close()
        #expect(try Replayer.checksum(name: "carts", directory: directory) == (head, expected))
    }

    @Test func aRebuildOfAnotherLayoutOrNoneIsRefusedAndTheFileStaysAsItWas() throws {
        let h = try smallHistory()
        let head = try h.log.headPosition()
        let directory = h.directory.appendingPathComponent("live")
        let live = try ProjectionStore.open(name: "carts", directory: directory, keys: h.keys)
        try live.apply(h.events())
        let before = try live.checksum()
        let rebuilt = Replayer.rebuiltURL(of: URL(fileURLWithPath: live.path))

        let older = try DatabaseQueue(path: rebuilt.path)
        try older.write { db in
            try db.execute(sql: "PRAGMA user_version = 999; CREATE TABLE checkpoint (id INTEGER PRIMARY KEY, position INTEGER)")
        }
        try older.close()
        #expect(throws: ProjectionStore.UnusableRebuild.self) {
            try live.adopt(rebuilt: rebuilt, catchingUpFrom: h.log, through: head)
        }
        try Replayer.removeDatabaseFiles(at: rebuilt)
        try Data("not a database".utf8).write(to: rebuilt)
        #expect(throws: (any Error).self) { try live.adopt(rebuilt: rebuilt, catchingUpFrom: h.log, through: head) }

        #expect(try live.checksum() == before)
        #expect(try live.checkpoint == head)
    }
}
