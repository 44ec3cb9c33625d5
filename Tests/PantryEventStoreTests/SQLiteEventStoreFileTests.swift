import Foundation
import GRDB
import Logging
import Synchronization
@testable import PantryEventStore
import Testing

@Suite struct SQLiteEventStoreFileTests {
    /// The one-point rule asks the log for points by index: a scan per command would grow with
    /// every point ever earned.
    @Test func earnedPointsAreFoundByIndex() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path)
            _ = try store.append([append("user-u1", expecting: 0,
                                         event("PointEarned", #"{"userId":"u1","recipeId":"r1","ingredient":"olive oil"}"#),
                                         event("RecipeSaved", #"{"userId":"u1","recipeId":"r1","ingredient":"salt"}"#))])
            #expect(try store.earnedPoints([PointKey(userId: "u1", recipeId: "r1", ingredient: "olive oil"),
                                            PointKey(userId: "u1", recipeId: "r1", ingredient: "salt"),
                                            PointKey(userId: "u2", recipeId: "r1", ingredient: "olive oil")])
                    == [PointKey(userId: "u1", recipeId: "r1", ingredient: "olive oil")])
            let plan = try DatabaseQueue(path: path).read { db in
                try Row.fetchAll(db, sql: """
                    EXPLAIN QUERY PLAN SELECT 1 FROM events WHERE type = 'PointEarned' AND user_id = ?
                    AND json_extract(data, '$.recipeId') = ? AND json_extract(data, '$.ingredient') = ? LIMIT 1
                    """, arguments: ["u1", "r1", "olive oil"]).map { $0["detail"] as String }.joined(separator: "; ")
            }
            #expect(plan.contains("USING INDEX events_points"), "\(plan)")
        }
    }


    /// An append that returned is on disk: the writer syncs the WAL at every commit (FULL). GRDB
    /// sets NORMAL on a pool's writer after `prepareDatabase`, which is where FULL used to be set,
    /// so every commit until now was synced only at the next checkpoint. The writer also keeps the
    /// large page cache that the core's lookups run in.
    @Test func theWriterSyncsEveryCommitAndKeepsItsCache() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
            #expect(try store.writerPragma("synchronous") == 2)
            #expect(try store.writerPragma("cache_size") == -SQLiteEventStore.writerCacheKiB)
            #expect(try store.writerPragma("journal_size_limit") == BackgroundCheckpointer.journalSizeLimit)
        }
    }

    /// The core's log leaves checkpoints to the background: no append copies the WAL into the
    /// file (that fsync stalled group commits), the checkpointer does, and nothing is lost.
    @Test func withCheckpointsInBackgroundOnlyTheCheckpointerCopiesTheWAL() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path, checkpointsInBackground: true)
            let fileSize = { (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0 }
            let before = try fileSize()
            // 1,500 commits of a few pages each: past SQLite's 1,000-page automatic checkpoint.
            for n in 0..<1_500 {
                _ = try store.append([append("s\(n)", expecting: 0, event("PointEarned", #"{"n":\#(n)}"#, commandId: "c\(n)"))])
            }
            #expect(try fileSize() == before, "no append checkpointed the WAL into the file")

            let checkpointer = try BackgroundCheckpointer(path: path, logger: Logger(label: "test"))
            // Started here, before the first suspension: `turn()` and `stop()` block this thread.
            Task.immediate { try await checkpointer.run() }
            checkpointer.turn()
            checkpointer.stop()
            #expect(try fileSize() > before)
            #expect(try SQLiteEventStore(path: path, readOnly: true).headPosition() == 1_500)
        }
    }


    /// Under commits that never pause, with a reader always somewhere in the WAL, a passive
    /// checkpoint never reaches the WAL's end, so SQLite never starts it over. The checkpointer
    /// restarts it once it holds `walLimitBytes` of frames: the file stays near that size while
    /// dozens of times more is written through it.
    @Test func theWALStartsOverOnceItHoldsTheLimitUnderContinuousWrites() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path, checkpointsInBackground: true)
            let limit: Int64 = 256 << 10
            let checkpointer = try BackgroundCheckpointer(path: path, walLimitBytes: limit, intervals: 0.0005...0.005,
                                                          logger: Logger(label: "test"))
            // Started here, before the first suspension: `turn()` and `stop()` block this thread.
            Task.immediate { try await checkpointer.run() }
            let reader = try SQLiteEventStore(path: path, readOnly: true)
            let writing = Atomic<Bool>(true)
            let readerDone = DispatchSemaphore(value: 0)
            Thread {
                while writing.load(ordering: .relaxed) { _ = try? reader.read(after: 0, limit: 50) }
                readerDone.signal()
            }.start()
            let payload = #"{"text":"\#(String(repeating: "x", count: 1_000))"}"#
            for n in 0..<2_000 {
                _ = try store.append([append("s\(n)", expecting: 0, event("PointEarned", payload, commandId: "c\(n)"))])
            }
            writing.store(false, ordering: .relaxed)
            readerDone.wait()
            checkpointer.stop()
            let walBytes = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber).int64Value
            // Never started over, the WAL holds everything written: 41 MB (157 times the limit).
            // The checkpointer's thread can lag a busy machine: 8.3 times once while the whole
            // suite ran in parallel.
            #expect(walBytes < 32 * limit, "the WAL reached \(walBytes) bytes")
            #expect(try reader.headPosition() == 2_000)
        }
    }

    /// A reader that stays in the WAL (a backup copying the log) makes a RESTART wait and give up,
    /// holding the writer meanwhile: tried every turn, the writer was held most of the time. It is
    /// tried again only after a backoff, and the WAL starts over once the reader has left.
    @Test func aReaderThatStaysInTheWALIsNotWaitedForAtEveryTurn() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path, checkpointsInBackground: true)
            var appended = 0
            func appendOne() throws {
                _ = try store.append([append("s\(appended)", expecting: 0, event(commandId: "c\(appended)"))])
                appended += 1
            }
            try appendOne()
            let limit: Int64 = 64 << 10
            let checkpointer = try BackgroundCheckpointer(path: path, walLimitBytes: limit, intervals: 0.001...0.01,
                                                          logger: Logger(label: "test"))
            // Started here, before the first suspension: `turn()` and `stop()` block this thread.
            Task.immediate { try await checkpointer.run() }
            defer { checkpointer.stop() }
            let reader = try DatabaseQueue(path: path)
            let inside = DispatchSemaphore(value: 0), leave = DispatchSemaphore(value: 0), left = DispatchSemaphore(value: 0)
            Thread {
                try? reader.read { db in
                    _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events")
                    inside.signal()
                    leave.wait()
                }
                left.signal()
            }.start()
            inside.wait()
            let holding = Date().addingTimeInterval(1.5)
            while Date() < holding { try appendOne() }
            let refusedWhileHeld = checkpointer.refusedRestarts.load(ordering: .relaxed)
            let walWhileHeld = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber).doubleValue
            leave.signal()
            left.wait()
            #expect(refusedWhileHeld >= 1, "the WAL passed its limit while the reader held it")
            // A try after 0.25 and 0.75 s, and one each time the WAL doubled: not one every turn
            // (a turn comes every 1-10 ms here).
            let doublings = Int(log2(walWhileHeld / Double(limit)).rounded(.up))
            #expect(refusedWhileHeld <= 3 + doublings,
                    "\(refusedWhileHeld) RESTARTs waited for the reader in 1.5 s, while the WAL grew to \(Int(walWhileHeld)) bytes")
            let deadline = Date().addingTimeInterval(10)
            while checkpointer.restarts.load(ordering: .relaxed) == 0, Date() < deadline { try appendOne() }
            #expect(checkpointer.restarts.load(ordering: .relaxed) >= 1, "the WAL started over once the reader left")
        }
    }

    /// Counted in chunks of positions, each a short read (a whole large log in one read held the
    /// WAL for seconds): the sums are the whole log's, whatever the chunk's size against the head.
    @Test func countsByTypeAddsUpChunkByChunk() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
            for n in 0..<23 {
                _ = try store.append([append("s\(n)", expecting: 0, event(n % 3 == 0 ? "A" : "B", commandId: "c\(n)"))])
            }
            for chunk: Int64 in [1, 4, 23, 1_000] {
                #expect(try store.countsByType(chunk: chunk, pause: 0) == ["A": 8, "B": 15], "chunk \(chunk)")
            }
            #expect(try SQLiteEventStore(path: dir.appendingPathComponent("empty.sqlite").path).countsByType() == [:])
        }
    }

    /// `pantry stats` on a large log while the core writes: a RESTART tried during the count must
    /// get in within the time it waits for readers, or the WAL grows until the count ends. The
    /// same count read as one chunk, with no pause, shows that the test can fail.
    @Test func aRestartTriedDuringACountGetsIn() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path, checkpointsInBackground: true)
            _ = try store.append([append("seed", expecting: 0, event(commandId: "seed"))])
            // 400,000 events at once; through `append` it would take most of a minute in a debug build.
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: """
                    WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 400001)
                    INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, command_id,
                                        user_id, recorded_at)
                    SELECT i, 's' || i, 1, CASE i % 3 WHEN 0 THEN 'A' ELSE 'B' END, 1, '{"n":1}', 'c' || i, 'u', 0 FROM n
                    """)
            }
            var restarter = Configuration()
            restarter.busyMode = .retrying(for: BackgroundCheckpointer.restartWait)
            let restarts = try DatabaseQueue(path: path, configuration: restarter)
            var written = 0
            /// The share of RESTARTs that got in while `count` ran over and over on another thread.
            func restartsGettingIn(during count: @escaping @Sendable () throws -> [String: Int]) throws -> Double {
                let counting = Atomic<Bool>(true), stopped = DispatchSemaphore(value: 0)
                Thread {
                    while counting.load(ordering: .relaxed) { _ = try? count() }
                    stopped.signal()
                }.start()
                var tried = 0, gotIn = 0
                let until = Date().addingTimeInterval(1.5)
                while Date() < until {
                    // A commit first, so that the count's reads are in the WAL, as under the core.
                    written += 1
                    _ = try store.append([append("w\(written)", expecting: 0, event(commandId: "w\(written)"))])
                    tried += 1
                    do {
                        _ = try restarts.writeWithoutTransaction { try $0.checkpoint(.restart) }
                        gotIn += 1
                    } catch DatabaseError.SQLITE_BUSY {}
                }
                counting.store(false, ordering: .relaxed)
                stopped.wait()
                return Double(gotIn) / Double(tried)
            }
            let reader = try SQLiteEventStore(path: path, readOnly: true)
            let oneSnapshot = try restartsGettingIn { try reader.countsByType(chunk: 1 << 40, pause: 0) }
            let chunked = try restartsGettingIn { try reader.countsByType() }
            #expect(oneSnapshot < 0.5, "\(Int(oneSnapshot * 100))% of RESTARTs got in beside a count in one snapshot")
            #expect(chunked > 0.9, "\(Int(chunked * 100))% of RESTARTs got in beside a count in chunks")
            #expect(try reader.countsByType()["A"] == 400_001 / 3)
        }
    }

    /// A worker started at the same moment as the core must not read a log without its tables.
    @Test func aReaderWaitsUntilTheWriterHasCreatedTheTables() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("events.sqlite").path
            #expect(try SQLiteEventStore.openForReading(path: path) == nil)
            // An empty SQLite file: what a reader may see while the core is still creating the log.
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            #expect(try SQLiteEventStore.openForReading(path: path) == nil)
            let writer = try SQLiteEventStore(path: path)
            _ = try writer.append([append("s", expecting: 0, event())])
            let reader = try #require(try SQLiteEventStore.openForReading(path: path))
            #expect(try reader.headPosition() == 1)
        }
    }

    @Test func onlyOneWriterLockAtATime() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.lock").path
            var first: WriterLock? = try WriterLock(path: path)
            #expect(first != nil)
            #expect(throws: WriterLock.Held.self) { try WriterLock(path: path) }
            do {
                _ = try WriterLock(path: path)
            } catch let held as WriterLock.Held {
                #expect(held.path == path)
            }
            first = nil
            let second = try WriterLock(path: path)
            #expect(throws: WriterLock.Held.self) { try WriterLock(path: path) }
            withExtendedLifetime(second) {}
            // Another path is another log.
            _ = try WriterLock(path: dir.appendingPathComponent("other.lock").path)
        }
    }
}
