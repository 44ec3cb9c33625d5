import Foundation
import GRDB
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing
@testable import PantryProjections
import PantryLog

/// A small history that touches every projection.
func smallHistory() throws -> History {
    let h = try History()
    h.register("u1", "alice")
    h.register("u2", "bob")
    for i in 0..<6 {
        let user = i % 2 == 0 ? "u1" : "u2"
        h.run(.saveRecipe(SaveRecipe(userId: user, recipeId: "r\(i)", recipe: History.facts("Dish number \(i)"))))
        h.run(.useOwnedIngredient(UseOwnedIngredient(userId: user, recipeId: "r\(i)", ingredient: "salt")))
        h.run(.adjustCart(AdjustCart(userId: user, recipeId: "r\(i % 3)", delta: 1)))
        h.run(.addGrocery(AddGrocery(userId: user, ingredient: "Flour", amount: Double(i + 1), unit: i % 2 == 0 ? "g" : "kg")))
        h.run(.writeExperience(WriteExperience(userId: user, recipeId: "r\(i % 2)", text: "note \(i)")))
    }
    h.run(.checkGrocery(CheckGrocery(userId: "u1", ingredient: "flour", checked: true)))
    h.run(.removeSavedRecipe(RemoveSavedRecipe(userId: "u2", recipeId: "r1")))
    h.run(.adjustCart(AdjustCart(userId: "u1", recipeId: "r0", delta: -1)))
    return h
}

@Suite struct ExactlyOnceTests {
    @Test(arguments: ProjectionCatalog.names)
    func duplicatesAndOverlapsChangeNothing(name: String) throws {
        let h = try smallHistory()
        let projection = try ProjectionCatalog.named(name)
        let events = try h.events()
        let head = try h.log.headPosition()
        #expect(events.count == Int(head) && head > 30)

        let once = try h.store(projection, "-once")
        #expect(try once.apply(events) == events.count)

        let twice = try h.store(projection, "-twice")
        try twice.apply(events)
        #expect(try twice.apply(events) == 0)

        let overlapping = try h.store(projection, "-overlap")
        try overlapping.apply(Array(events[0..<20]))
        #expect(try overlapping.apply(Array(events[10..<30])) == 10)
        #expect(try overlapping.apply(Array(events[5..<15])) == 0)
        try overlapping.apply(Array(events[25...]))
        // Duplicates inside one batch.
        let dup = try h.store(projection, "-dup")
        try dup.apply(events.flatMap { [$0, $0] })

        let expected = try once.checksum()
        #expect(expected.count == 64)
        for store in [twice, overlapping, dup] {
            #expect(try store.checkpoint == head)
            #expect(try store.checksum() == expected)
        }
        // The checksum does not depend on the checkpoint but does on the state.
        let partial = try h.store(projection, "-partial")
        try partial.apply(Array(events[0..<(events.count - 1)]))
        let lastMatters = projection.eventTypes.names.contains(events.last!.type)
        #expect((try partial.checksum() != expected) == lastMatters)
        #expect(try Replayer.checksum(of: projection, at: once.path) == (head, expected))
    }

    @Test(arguments: ProjectionCatalog.names)
    func aGapThrowsAndCatchUpConverges(name: String) throws {
        let h = try smallHistory()
        let projection = try ProjectionCatalog.named(name)
        let events = try h.events()
        let reference = try h.store(projection, "-ref")
        try reference.apply(events)

        let store = try h.store(projection, "-gap")
        try store.apply(Array(events[0..<10]))                      // positions 1...10
        #expect(throws: ProjectionError.gap(expected: 11, got: 13)) { try store.apply(Array(events[12..<20])) }
        // A hole in the middle of a batch: nothing of the batch is applied.
        #expect(throws: ProjectionError.gap(expected: 13, got: 14)) {
            try store.apply([events[10], events[11], events[13], events[14]])
        }
        #expect(try store.checkpoint == 10)
        // Old events only: nothing to do, no gap.
        #expect(try store.apply(Array(events[2..<5])) == 0)

        var reports: [(Int64, Int64)] = []
        let applied = try store.catchUp(from: h.log, batchSize: 4) { reports.append(($0, $1)) }
        #expect(applied == Int64(events.count - 10))
        #expect(try store.checkpoint == Int64(events.count))
        #expect(try store.checksum() == reference.checksum())
        #expect(reports.first! == (10, Int64(events.count)))
        #expect(reports.last! == (Int64(events.count), Int64(events.count)))
        // Caught up: nothing more.
        #expect(try store.catchUp(from: h.log) == 0)
    }

    @Test func stateSurvivesReopening() throws {
        let h = try smallHistory()
        let events = try h.events()
        let path: String
        let checksum: String
        do {
            let store = try h.store(LeaderboardProjection())
            try store.apply(Array(events[0..<15]))
            path = store.path
            try store.close()
        }
        let reopened = try ProjectionStore(projection: LeaderboardProjection(), path: path, keys: h.keys)
        #expect(try reopened.checkpoint == 15)
        try reopened.apply(events)
        checksum = try reopened.checksum()
        let fresh = try h.store(LeaderboardProjection(), "-fresh")
        try fresh.apply(events)
        #expect(try fresh.checksum() == checksum)
    }

    @Test func replayerSwapsAFreshFileIn() throws {
        let h = try smallHistory()
        let dir = h.directory.appendingPathComponent("live")
        // A live file that is behind (and has a WAL beside it).
        let live = try ProjectionStore.open(name: "groceries", directory: dir, keys: h.keys)
        try live.apply(Array(try h.events()[0..<7]))
        try live.close()
        // A leftover from an interrupted rebuild.
        let leftover = dir.appendingPathComponent("groceries.sqlite.rebuild")
        try Data("garbage".utf8).write(to: leftover)

        var progress: [(Int64, Int64)] = []
        let report = try Replayer.rebuild(GroceriesProjection(), directory: dir, from: h.log, keys: h.keys, batchSize: 10) {
            progress.append(($0, $1))
        }
        let head = try h.log.headPosition()
        #expect(report.checkpoint == head && report.events == head)
        #expect(progress.last! == (head, head))
        #expect(progress.map(\.0) == progress.map(\.0).sorted())
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        let verified = try Replayer.checksum(name: "groceries", directory: dir)
        #expect(verified == (head, report.checksum))
        // The swapped-in file works as a live store and matches a live copy.
        let reopened = try ProjectionStore.open(name: "groceries", directory: dir, keys: h.keys)
        #expect(try reopened.checkpoint == head)
        let other = try h.caughtUp(GroceriesProjection())
        #expect(try other.checksum() == report.checksum)
    }
}

@Suite struct BatchFoldTests {
    private func recorded(_ position: Int64, _ event: Event, keys: UserKeyStore) throws -> RecordedEvent {
        RecordedEvent(position: position, streamId: "s\(position)", streamVersion: 1, type: event.type.rawValue,
                      schemaVersion: event.type.schemaVersion, data: try EventCoding.encode(event, vault: keys),
                      metadata: EventMetadata(commandId: "c\(position)", correlationId: nil, causationId: nil,
                                              userId: "u1", recordedAt: 1_700_000_000_000 + position))
    }

    /// The leaderboard sums a batch's points per user; that must leave exactly the rows that one
    /// event at a time leaves, even for orders the decider never produces (points before a
    /// registration, a second registration).
    @Test func theLeaderboardFoldsABatchAsOneByOneWould() throws {
        let h = try History()
        func registered(_ user: String, _ name: String) -> Event {
            .userRegistered(UserRegistered(userId: user, username: name, email: "\(name)@example.org", passwordHash: "$scrypt$x"))
        }
        func point(_ user: String) -> Event { .pointEarned(PointEarned(userId: user, recipeId: "r1", ingredient: "salt")) }
        let events = try [
            point("u9"), registered("u1", "alice"), point("u1"), point("u2"), point("u1"), registered("u2", "bob"),
            point("u2"), point("u1"), registered("u1", "alice2"), point("u3"), point("u2"), point("u2"),
        ].enumerated().map { try recorded(Int64($0.offset + 1), $0.element, keys: h.keys) }
        try h.keys.persistPending()

        let oneByOne = try h.store(LeaderboardProjection(), "-one")
        for event in events { try oneByOne.apply([event]) }
        let batched = try h.store(LeaderboardProjection(), "-batch")
        try batched.apply(events)
        #expect(try batched.checksum() == oneByOne.checksum())
        let top = try batched.read { try LeaderboardProjection.top(10, in: $0) }
        #expect(top.map(\.userId) == ["u2", "u1", "u9", "u3"])
        #expect(top.map(\.points) == [4, 3, 1, 1])
        #expect(top.map(\.username) == ["bob", "alice2", "u9", "u3"])
    }

    /// Catch-up reads the next batch ahead while one is applied: an event it cannot decode stops
    /// it at that event's batch, whichever thread meets it first.
    @Test("A catch-up stops at the batch of an undecodable event, with nothing of that batch applied and everything before it")
    func anUndecodableEventStopsCatchUpBeforeItsBatch() throws {
        let h = try smallHistory()
        let good = try h.events()
        let bad = Int64(good.count + 1)
        // Valid JSON (the log refuses anything else) without the point's user.
        _ = try h.log.append([StreamAppend(streamId: "no-user", expectedVersion: 0, events: [
            NewEvent(type: EventType.pointEarned.rawValue, schemaVersion: 1, data: Data(#"{"recipeId":"r1","ingredient":"salt"}"#.utf8),
                     metadata: EventMetadata(commandId: "bad", correlationId: nil, causationId: nil, userId: "u1", recordedAt: 0)),
        ])])

        let store = try h.store(LeaderboardProjection(), "-undecodable")
        let error = #expect(throws: ProjectionError.self) { try store.catchUp(from: h.log, batchSize: 4) }
        guard case .undecodable(let position, _) = error else {
            Issue.record("expected undecodable, got \(String(describing: error))")
            return
        }
        #expect(position == bad)
        let stoppedAt = (bad - 1) / 4 * 4
        #expect(stoppedAt > 4, "the bad batch must come from the read-ahead, not the first read")
        #expect(try store.checkpoint == stoppedAt)
        let reference = try h.store(LeaderboardProjection(), "-reference")
        try reference.apply(Array(good[0..<Int(stoppedAt)]))
        #expect(try store.checksum() == reference.checksum())
    }

    @Test func aRangeReadForSomeTypesMovesTheCheckpointOverTheRest() throws {
        let h = try smallHistory()
        let head = try h.log.headPosition()
        let store = try h.store(CartsProjection(), "-range")
        let types = CartsProjection().eventTypes.names
        // A range whose start is not the checkpoint would skip events: refused, nothing changes.
        #expect(throws: ProjectionError.gap(expected: 1, got: 6)) {
            try store.apply(h.log.read(after: 5, through: 10, types: types), after: 5, through: 10)
        }
        #expect(try store.checkpoint == 0)
        #expect(try store.apply(h.log.read(after: 0, through: 10, types: types), after: 0, through: 10) == 10)
        #expect(try store.checkpoint == 10)
        try store.apply(h.log.read(after: 10, through: head, types: types), after: 10, through: head)
        #expect(try store.checkpoint == head)
        let reference = try h.store(CartsProjection(), "-reference")
        try reference.apply(h.events())
        #expect(try store.checksum() == reference.checksum())
    }
}
