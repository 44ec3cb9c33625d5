import Foundation
import GRDB
import PantryCore
import PantryDomain
@testable import PantryEventStore
import Logging
import Testing
@testable import PantryProjections
import PantryStandings

/// A user who touches every read model, beside one who stays.
private func historyOfTwoUsers() throws -> History {
    let h = try History()
    h.register("gone-user", "zoegone")
    h.register("kept-user", "keptname")
    for user in ["gone-user", "kept-user"] {
        h.run(.saveRecipe(SaveRecipe(userId: user, recipeId: "r1", recipe: History.facts("Shakshuka"))))
        h.run(.useOwnedIngredient(UseOwnedIngredient(userId: user, recipeId: "r1", ingredient: "eggs")))
        h.run(.adjustCart(AdjustCart(userId: user, recipeId: "r1", delta: 2)))
        h.run(.addGrocery(AddGrocery(userId: user, ingredient: "Flour", amount: 200, unit: "g", recipeId: "r1")))
        h.run(.writeExperience(WriteExperience(userId: user, recipeId: "r1", text: "a tip from \(user)")))
    }
    return h
}

/// Every text value of every table of the store's file: what any read of it could show.
private func textValues(_ store: ProjectionStore) throws -> [String] {
    try store.read { db in
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        return try tables.flatMap { table in
            try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").flatMap { row in
                row.databaseValues.compactMap { String.fromDatabaseValue($0) }
            }
        }
    }
}

@Suite struct UserDeletedTests {
    @Test(arguments: ProjectionCatalog.names)
    func aDeletedUserLeavesNothingInTheReadModelAndOthersStay(name: String) throws {
        let h = try historyOfTwoUsers()
        let store = try h.caughtUp(try ProjectionCatalog.named(name))
        let before = try textValues(store)
        // The scan can see the user at all: otherwise the check below proves nothing.
        #expect(before.contains { $0.contains("gone-user") })

        h.run(.deleteUser(DeleteUser(userId: "gone-user")))
        try store.catchUp(from: h.log, batchSize: 3)
        #expect(try store.checkpoint == h.log.headPosition())
        let after = try textValues(store)
        #expect(!after.contains { $0.contains("gone-user") || $0.contains("zoegone") })
        #expect(after.contains { $0.contains("kept-user") }, "the other user's data stays")
    }

    /// Deleted rows are overwritten in the file, whatever the SQLite build's default (Debian's
    /// overwrites them; a build that does not would leave the name readable in free pages).
    @Test(arguments: ProjectionCatalog.names)
    func aDeletedUsersBytesAreNotLeftInTheFile(name: String) throws {
        let h = try historyOfTwoUsers()
        let store = try h.caughtUp(try ProjectionCatalog.named(name))
        #expect(try store.write { try Int.fetchOne($0, sql: "PRAGMA secure_delete") } == 1)
        h.run(.deleteUser(DeleteUser(userId: "gone-user")))
        try store.catchUp(from: h.log, batchSize: 3)
        // The last connection's close copies the WAL into the file and deletes the WAL.
        try store.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(bytes.range(of: Data("gone-user".utf8)) == nil)
        #expect(bytes.range(of: Data("zoegone".utf8)) == nil)
    }

    /// A running worker's file stays open: nothing closes it to fold the WAL away. After the
    /// deletion the checkpointer empties the WAL (`eraseWAL`), so neither file holds the person's
    /// bytes while the worker goes on (docs/erasure.md's bound; issue 45 found the tip and the
    /// grocery item in the WALs of running workers).
    @Test(arguments: ProjectionCatalog.names)
    func aDeletedUsersBytesLeaveTheWALOfARunningWorker(name: String) throws {
        let h = try historyOfTwoUsers()
        let directory = h.directory.appendingPathComponent("running")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("\(name).sqlite").path
        let store = try ProjectionStore(projection: try ProjectionCatalog.named(name), path: path, keys: h.keys,
                                        checkpointsInBackground: true)
        defer { try? store.close() }
        try store.catchUp(from: h.log, batchSize: 3)
        let checkpointer = try BackgroundCheckpointer(path: path, logger: Logger(label: "test"))
        // Started here, before the first suspension: `stop()` blocks this thread.
        Task.immediate { try await checkpointer.run() }
        defer { checkpointer.stop() }
        func holding() throws -> [String] {
            try [path, path + "-wal"].flatMap { file in
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                return ["gone-user", "zoegone"].filter { bytes.range(of: Data($0.utf8)) != nil }.map { "\(file): \($0)" }
            }
        }
        #expect(try !holding().isEmpty, "the scan sees the person before the deletion")

        h.run(.deleteUser(DeleteUser(userId: "gone-user")))
        try store.catchUp(from: h.log, batchSize: 3)
        checkpointer.eraseWAL()
        // Each turn of the checkpointer's thread tries the erasure (a reader may make it try again).
        let deadline = ContinuousClock.now + .seconds(10)
        while checkpointer.erasures.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { checkpointer.turn() }
        #expect(checkpointer.erasures.load(ordering: .relaxed) == 1)
        #expect(try holding() == [])
        #expect(try textValues(store).contains { $0.contains("kept-user") }, "the worker's file is still open and whole")
    }

    @Test func theDeletedUserIsGoneFromTheLeaderboardAndTheExperiencesAuthors() throws {
        let h = try historyOfTwoUsers()
        h.run(.deleteUser(DeleteUser(userId: "gone-user")))
        let leaderboard = try h.caughtUp(LeaderboardProjection())
        #expect(try leaderboard.read { try LeaderboardProjection.top(10, in: $0) }
                == [LeaderboardEntry(rank: 1, userId: "kept-user", username: "keptname", points: 1)])
        let experiences = try h.caughtUp(ExperiencesProjection())
        #expect(try experiences.read { try String.fetchAll($0, sql: "SELECT user_id FROM authors") } == ["kept-user"])
        #expect(try experiences.read { try String.fetchAll($0, sql: "SELECT user_id FROM experiences") } == ["kept-user"])
    }

    /// Live, the worker saw the user's name before the deletion; a replay after it sees only a
    /// tombstone (the key is gone). Both must end in the same read model.
    @Test(arguments: ProjectionCatalog.names)
    func replayAfterADeletionEqualsTheLiveReadModel(name: String) throws {
        let h = try historyOfTwoUsers()
        let projection = try ProjectionCatalog.named(name)
        let live = try h.caughtUp(projection)
        h.run(.deleteUser(DeleteUser(userId: "gone-user")))
        h.register("late-user", "latename")
        h.run(.useOwnedIngredient(UseOwnedIngredient(userId: "late-user", recipeId: "r1", ingredient: "salt")))
        try live.catchUp(from: h.log, batchSize: 2)

        let report = try Replayer.rebuild(projection, directory: h.directory.appendingPathComponent("replayed"),
                                          from: h.log, keys: h.keys, batchSize: 1_000)
        #expect(report.checkpoint == (try h.log.headPosition()))
        #expect(try live.checksum() == report.checksum)
    }
}
