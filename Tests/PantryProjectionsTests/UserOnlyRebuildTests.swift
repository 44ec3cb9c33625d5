import Foundation
import PantryDomain
import PantryEventStore
import PantryLog
import Synchronization
import Testing
@testable import PantryProjections

/// The leaderboard's rebuild reads only its points' users from a log that can (`EventUserReader`),
/// whole events from one that cannot (the log service's remote reader), and both end as the live fold.
@Suite struct UserOnlyRebuildTests {
    @Test func pointsReadAsUsersRebuildTheSameLeaderboardAsWholeEvents() throws {
        let h = try randomHistory(seed: 0xF01D, commands: 2_000)
        let head = try h.log.headPosition()
        let live = try h.caughtUp(LeaderboardProjection())
        let counting = CountingUserReader(h.log)
        // An odd batch size, so batches end between a user's points and their registration or deletion.
        let narrow = try Replayer.rebuild(LeaderboardProjection(), directory: h.directory.appendingPathComponent("narrow"),
                                          from: counting, keys: h.keys, batchSize: 97)
        let whole = try Replayer.rebuild(LeaderboardProjection(), directory: h.directory.appendingPathComponent("whole"),
                                         from: WholeEventsReader(h.log), keys: h.keys, batchSize: 97)
        #expect(narrow.checkpoint == head && whole.checkpoint == head)
        #expect(narrow.checksum == whole.checksum)
        #expect(try live.checksum() == narrow.checksum)
        let asked = counting.asked.withLock { $0 }
        #expect(asked.userReads > 0)
        #expect(asked.points > 0)
        #expect(!asked.wholeTypes.contains(EventType.pointEarned.rawValue), "points were read whole: \(asked.wholeTypes)")
        #expect(asked.wholeTypes.contains(EventType.userRegistered.rawValue))
    }

    @Test func aPointOfAVersionThisBuildDoesNotKnowIsRefusedEitherWay() throws {
        let h = try randomHistory(seed: 3, commands: 200)
        let odd = NewEvent(type: EventType.pointEarned.rawValue, schemaVersion: 2,
                           data: Data(#"{"userId":"u1","recipeId":"r1","ingredient":"salt"}"#.utf8),
                           metadata: EventMetadata(commandId: "odd", correlationId: nil, causationId: nil, userId: "u1", recordedAt: 0))
        let position = try #require(try h.log.append([StreamAppend(streamId: "odd-stream", expectedVersion: 0, events: [odd])]).first).lowerBound
        let logs: [(String, any EventLogReader)] = [("narrow", h.log), ("whole", WholeEventsReader(h.log))]
        for (name, log) in logs {
            do {
                try Replayer.rebuild(LeaderboardProjection(), directory: h.directory.appendingPathComponent(name),
                                     from: log, keys: h.keys, batchSize: 50)
                Issue.record("\(name): the rebuild accepted a point of schema version 2")
            } catch ProjectionError.undecodable(let at, _) {
                #expect(at == position, "\(name)")
            }
        }
    }
}

/// The log as a reader of whole events only, as the log service's remote reader is.
private final class WholeEventsReader: EventLogReader {
    let log: SQLiteEventStore
    init(_ log: SQLiteEventStore) { self.log = log }
    func read(after position: Int64, limit: Int) throws -> [RecordedEvent] { try log.read(after: position, limit: limit) }
    func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent] {
        try log.read(after: position, through: last, types: types)
    }
    func read(positions: [Int64]) throws -> [RecordedEvent] { try log.read(positions: positions) }
    func headPosition() throws -> Int64 { try log.headPosition() }
    func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients {
        try log.earnedIngredients(userId: userId, recipeId: recipeId)
    }
}

/// The log, noting which types a rebuild read whole and how many users it read alone.
private final class CountingUserReader: EventUserReader {
    struct Asked { var wholeTypes: Set<String> = []; var userReads = 0; var points = 0 }
    let log: SQLiteEventStore
    let asked = Mutex(Asked())
    init(_ log: SQLiteEventStore) { self.log = log }
    func read(after position: Int64, limit: Int) throws -> [RecordedEvent] { try log.read(after: position, limit: limit) }
    func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent] {
        asked.withLock { $0.wholeTypes.formUnion(types) }
        return try log.read(after: position, through: last, types: types)
    }
    func readUsers(after position: Int64, through last: Int64, type: String) throws -> [EventUser] {
        let users = try log.readUsers(after: position, through: last, type: type)
        asked.withLock { $0.userReads += 1; $0.points += users.count }
        return users
    }
    func read(positions: [Int64]) throws -> [RecordedEvent] { try log.read(positions: positions) }
    func headPosition() throws -> Int64 { try log.headPosition() }
    func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients {
        try log.earnedIngredients(userId: userId, recipeId: recipeId)
    }
}
