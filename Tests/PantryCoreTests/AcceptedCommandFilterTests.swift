import Foundation
import Logging
@testable import PantryCore
import PantryDomain
import PantryEventStore
import Testing
import PantryLog

@Suite struct AcceptedCommandFilterTests {
    private static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    @Test func untilTheLogIsReadEveryIdIsAskedOfTheLog() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
            let filter = AcceptedCommandFilter(maxBytes: 64 << 20, logger: Self.quiet)
            #expect(filter.mayHaveAccepted(["a", "b"]) == ["a", "b"])
            filter.start(filter.filterForLog(head: 0), readingThrough: 0, of: store)
            filter.waitForReading()
            #expect(filter.mayHaveAccepted(["a", "b"]) == [])
            filter.insert(["a"])
            #expect(filter.mayHaveAccepted(["a", "b"]) == ["a"])
        }
    }

    @Test func aLogWhoseIdsCannotBeReadLetsTheFilterGo() throws {
        try withTemporaryDirectory { dir in
            let store = CountingStore(try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path))
            store.unreadable = true
            let filter = AcceptedCommandFilter(maxBytes: 64 << 20, logger: Self.quiet)
            filter.start(filter.filterForLog(head: 10), readingThrough: 10, of: store)
            #expect(filter.bytes > 0)
            filter.waitForReading()
            #expect(filter.bytes == 0)
            filter.insert(["a"])
            #expect(filter.mayHaveAccepted(["a", "b"]) == ["a", "b"])
        }
    }

    @Test func theFilterGrowsAsIdsComeAndLetsGoPastItsLimit() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
            // 1,000 ids take about 2,000 bytes; the next layers 4,000 and 8,000; 16,000 more would pass the limit.
            let filter = AcceptedCommandFilter(maxBytes: 15_000, minimumCapacity: 1_000, logger: Self.quiet)
            filter.start(filter.filterForLog(head: 0), readingThrough: 0, of: store)
            filter.waitForReading()
            let ids = (0..<7_000).map { "id-\($0)" }
            filter.insert(ids)
            #expect(filter.bytes == [1_000, 2_000, 4_000].map { BloomFilter(capacity: $0).bytes }.reduce(0, +))
            #expect(filter.mayHaveAccepted(ids) == ids)
            let others = (0..<10_000).map { "other-\($0)" }
            #expect(filter.mayHaveAccepted(others).count < 100)
            filter.insert(["one-more"])
            #expect(filter.bytes == 0)
            #expect(filter.mayHaveAccepted(others) == others)
        }
    }
}

/// The real log, with every id the core asks about counted; `unreadable` makes its range reads
/// fail, as a log that cannot be read does.
final class CountingStore: EventStore, @unchecked Sendable {
    let log: SQLiteEventStore
    private(set) var askedIds: [String] = []
    var unreadable = false

    struct Unreadable: Error {}

    init(_ log: SQLiteEventStore) { self.log = log }

    func append(_ appends: [StreamAppend]) throws -> [ClosedRange<Int64>] { try log.append(appends) }
    func read(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        if unreadable { throw Unreadable() }
        return try log.read(after: position, limit: limit)
    }
    func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent] {
        try log.read(after: position, through: last, types: types)
    }
    func readUsers(after position: Int64, through last: Int64, type: String) throws -> [EventUser] {
        try log.readUsers(after: position, through: last, type: type)
    }
    func read(positions: [Int64]) throws -> [RecordedEvent] { try log.read(positions: positions) }
    func readStream(_ streamId: String) throws -> [RecordedEvent] { try log.readStream(streamId) }
    func acceptedCommands(_ commandIds: [String]) throws -> [String: AcceptedCommand] {
        askedIds += commandIds
        return try log.acceptedCommands(commandIds)
    }
    func earnedPoints(_ points: [PointKey]) throws -> Set<PointKey> { try log.earnedPoints(points) }
    func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients {
        try log.earnedIngredients(userId: userId, recipeId: recipeId)
    }
    func headPosition() throws -> Int64 { try log.headPosition() }
    func countsByType() throws -> [String: Int] { try log.countsByType() }
}

@Suite struct CommandIdLookupTests {
    /// With a snapshot every 100 events, a start folds only the log after the last one and reads
    /// the command ids before it in the background.
    private func open(_ store: any EventStore, path: String, filterBytes: Int = 64 << 20) throws -> CommandProcessor {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try CommandProcessor(store: store, keys: keyStore(besideLog: path), snapshotPath: path + ".snapshot",
                                    snapshotEvery: 100, commandIdFilterBytes: filterBytes, logger: logger)
    }

    /// 50 users, each registered, cooking 4 recipes and then using an ingredient 20 times: 1,450
    /// commands, of which the 4 first uses per user earn a point and the others are refused
    /// (already earned).
    private func commands() -> [CommandEnvelope] {
        (0..<50).map { envelope("register-\($0)", register("u\($0)")) }
            + (0..<50).flatMap { user in (0..<4).flatMap { cooking("cook-\(user)-\($0)", "u\(user)", "r\($0)") } }
            + (0..<50).flatMap { user in
                (0..<20).map { n in envelope("use-\(user)-\(n)", use("u\(user)", "r\(n % 4)", n % 2 == 0 ? "salt" : "flour")) }
            }
    }

    @Test func idsLoggedBeforeAStartAreStillDuplicatesOnceTheirFilterIsRead() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let first = try open(SQLiteEventStore(path: path), path: path)
            let outcomes = stride(from: 0, to: commands().count, by: 50).flatMap { start in
                first.process(Array(commands()[start..<min(start + 50, commands().count)]))
            }
            #expect(outcomes.filter { $0.status == .accepted }.count > 100)
            first.waitForSnapshot()
            // The last snapshot may have landed at the head (when depends on the background
            // writer): one more event leaves something after it for the fold.
            if first.lastSnapshot == first.head {
                #expect(first.process([envelope("register-late", register("late"))])[0].status == .accepted)
            }
            let head = first.head

            let store = CountingStore(try SQLiteEventStore(path: path))
            let again = try open(store, path: path)
            // Ids before the snapshot read in the background, those after it seen by the fold.
            #expect(again.loadedFromSnapshot > 0 && again.loadedFromSnapshot < head)
            again.waitForCommandIds()
            // The log's ids in a filter of their own, and a first one for the ids appended from now on.
            #expect(again.commandIdFilterBytes == BloomFilter.bytes(capacity: Int(head)) + BloomFilter.bytes(capacity: 1 << 20))
            let retried = again.process(commands())
            for (before, after) in zip(outcomes, retried) where before.status == .accepted {
                #expect(after == .accepted(before.commandId!, before.positions!.first!...before.positions!.last!, duplicate: true))
            }
            #expect(again.head == head)
            // Every accepted id was found in the filter and looked up; a rejected one may be a new command now.
            let accepted = Set(outcomes.filter { $0.status == .accepted }.compactMap(\.commandId))
            #expect(accepted.isSubset(of: Set(store.askedIds)))
        }
    }

    @Test func aNewCommandIdIsNotLookedUpInTheLog() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = CountingStore(try SQLiteEventStore(path: path))
            let processor = try open(store, path: path)
            processor.waitForCommandIds()
            let outcomes = processor.process(commands())
            #expect(outcomes.allSatisfy { $0.status != .failed })
            #expect(store.askedIds.count < 5)
            // A retry and a reuse are looked up, and answered from the log.
            let retry = processor.process([envelope("use-3-2", use("u3", "r2", "salt")), envelope("use-3-1", register("u99"))])
            #expect(retry[0].duplicate == true)
            #expect(retry[1].code == .rejection(.commandIdReused))
            #expect(store.askedIds.suffix(2) == ["use-3-2", "use-3-1"])
        }
    }

    @Test func withNoRoomForTheFilterEveryIdIsLookedUpAndRetriesStillWork() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = CountingStore(try SQLiteEventStore(path: path))
            let processor = try open(store, path: path, filterBytes: 1_000)
            processor.waitForCommandIds()
            #expect(processor.commandIdFilterBytes == 0)
            let outcomes = processor.process(commands())
            #expect(store.askedIds.count == commands().count)
            let retried = processor.process(commands())
            #expect(zip(outcomes, retried).allSatisfy { before, after in
                before.status != .accepted || (after.duplicate == true && after.positions == before.positions)
            })
        }
    }
}
