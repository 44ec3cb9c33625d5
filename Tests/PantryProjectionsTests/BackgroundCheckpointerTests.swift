import Foundation
import Logging
import PantryDomain
import Testing
@testable import PantryEventStore
@testable import PantryProjections

@Suite struct BackgroundCheckpointerTests {
    /// With checkpoints left to the background, commits never copy the WAL into the file; the
    /// checkpointer does, and what it copied is the same state.
    @Test func theFileCatchesUpWithTheWALOnlyThroughTheCheckpointer() throws {
        let h = try History()
        for n in 0..<600 { h.register("u\(n)", "user\(n)") }
        let path = h.directory.appendingPathComponent("leaderboard.sqlite").path
        let store = try ProjectionStore(projection: LeaderboardProjection(), path: path, keys: h.keys, checkpointsInBackground: true)
        let fileSize = { (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0 }
        let before = try fileSize()
        // 600 commits write well over SQLite's 1,000-page automatic checkpoint threshold.
        try store.catchUp(from: h.log, batchSize: 1)
        #expect(try fileSize() == before, "no commit checkpointed the WAL into the file")

        let checkpointer = try BackgroundCheckpointer(path: path, logger: Logger(label: "test"))
        // Started here, before the first suspension: `turn()` and `stop()` block this thread.
        Task.immediate { try await checkpointer.run() }
        checkpointer.turn()
        checkpointer.stop()
        #expect(try fileSize() > before)
        #expect(try store.read { try LeaderboardProjection.count(in: $0) } == 600)
        try store.close()
    }
}
