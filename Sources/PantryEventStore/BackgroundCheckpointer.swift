import Foundation
import GRDB
import GRDBSQLite
import Logging
import PantryThreads
import ServiceLifecycle
import Synchronization

/// Copies an SQLite file's WAL into the file on a thread of its own, so the process that writes it
/// never stops for a checkpoint's fsync: SQLite would otherwise run one inside whichever commit
/// crosses 1,000 pages. In the core that stalled a group commit by 10-60 ms several times a
/// second; in a worker, an event's visibility. Open the log or the projection with
/// `checkpointsInBackground: true`.
///
/// Checkpoints are PASSIVE: they never wait for, nor block, the writer or readers. But under
/// continuous writes with readers always somewhere in the WAL, a passive checkpoint never gets to
/// the WAL's end, so SQLite never starts it over and it only grows (1.9 GB beside a 98 MB log in
/// 20 minutes). So once the WAL holds more than `walLimitBytes` of frames, a RESTART checkpoint
/// waits up to `restartWait` for the readers to leave the WAL, holding the writer off that long at
/// most; the next commit then writes from the WAL's start.
///
/// A RESTART holds the writer while it copies what came since the last passive checkpoint and syncs
/// the file. SQLite syncs the file only when a checkpoint reaches the WAL's end, which a passive
/// one under writes nearly never does, so that sync flushed every page copied since the last
/// RESTART: 14-18 ms with the writer held, about once a second at half the increments' full rate.
/// The thread therefore syncs the file itself after each passive checkpoint, holding no lock, and
/// once more right before a RESTART, which is left 0-7 ms (a median of 1.9 ms at half rate; 4.9
/// with one pass). The WAL's size is read from its frames, not its file, which is left at its size
/// (`journalSizeLimit`, set by the writer, cuts back only a WAL that a burst made larger): a commit
/// that overwrites blocks the file already has is synced without the file's size and blocks,
/// whereas one that grows the file syncs those too.
///
/// A reader that stays in the WAL (a backup copying the log, a long read) makes every RESTART wait
/// `restartWait` and give up, holding the writer all that time: tried every turn with a 0.1 s wait,
/// that held it a third of the time. Readers that come and go leave within a few milliseconds,
/// which the wait, polled every 0.2 ms, covers; after a refusal the next try waits
/// `restartBackoff`, doubled at each refusal up to `maxRestartBackoff`, or until the WAL has
/// doubled, whichever comes first (`RestartSchedule`), and the refusal is logged once until a
/// RESTART succeeds. A reader slowed by a busy machine is refused too: in a soak, a single refusal
/// with a 1 s wait let the WAL grow from 68 to 125 MiB before the next try succeeded, and on two
/// busy cores a test writing 20 MB/s through a 256 KiB limit saw 4-9 MB after one refusal with
/// 0.25 s.
///
/// Each turn's sync competes on the disk with the commits' own: with turns every 0.2 s, the
/// increments' p99 at half rate was 9.4, 11.5 and 63 ms in three runs, against 8.6, 9.6 and 9.9
/// with the turns paced as follows, alternated. But turns too far apart let the WAL pass its limit
/// by a turn's writes, hundreds of MB at full rate. So the next turn comes when the WAL, growing as
/// fast as it did since the last turn, would reach the limit, within `intervals`: once a second
/// while it fills slowly, sooner as it nears the limit.
///
/// A service: the thread starts in `run()` and ends after its current turn on the group's graceful
/// shutdown. A thread of its own rather than NIO's pool for blocking work: a turn blocks on the
/// disk for tens of milliseconds, and one stuck behind other work there lets the WAL pass its limit.
package final class BackgroundCheckpointer: Service {
    package static let walLimitBytes: Int64 = 64 << 20
    /// The writers' `journal_size_limit`: a WAL restarted at `walLimitBytes` keeps its blocks.
    package static let journalSizeLimit = 2 * walLimitBytes
    static let restartWait: TimeInterval = 0.02
    static let restartBackoff: Duration = .milliseconds(250)
    static let maxRestartBackoff: Duration = .seconds(30)

    private let path: String
    private let walLimitBytes: Int64
    private let intervals: ClosedRange<TimeInterval>
    private let connection: DatabaseQueue
    private let frameBytes: Int64
    private let thread: ServiceThread<Never>
    private let logger: Logger
    /// Set once the thread has ended, for `stop()`.
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// RESTART checkpoints that succeeded, and that readers made give up, for tests.
    let restarts = Atomic<Int>(0)
    let refusedRestarts = Atomic<Int>(0)
    /// Set by `eraseWAL()` until a TRUNCATE checkpoint has emptied the WAL.
    private let eraseRequested = Atomic<Bool>(false)
    /// How often a TRUNCATE that a reader refused is tried again.
    static let eraseRetry: TimeInterval = 0.25
    /// TRUNCATE checkpoints that emptied the WAL for `eraseWAL()`, for tests.
    let erasures = Atomic<Int>(0)
    /// Callers of `turn()` waiting for the next turn to end; `closed` once the thread has ended.
    private let turnWaiters = Mutex<(waiting: [DispatchSemaphore], closed: Bool)>(([], false))

    package init(path: String, walLimitBytes: Int64 = walLimitBytes, intervals: ClosedRange<TimeInterval> = 0.05...1,
                logger: Logger) throws {
        var config = Configuration()
        config.label = "checkpointer"
        config.busyMode = .retrying(for: Self.restartWait)
        connection = try DatabaseQueue(path: path, configuration: config)
        frameBytes = try connection.read { try Int64.fetchOne($0, sql: "PRAGMA page_size") ?? 4096 } + 24
        self.path = path
        self.walLimitBytes = walLimitBytes
        self.intervals = intervals
        self.logger = logger
        thread = try ServiceThread(name: "checkpointer")
    }

    /// Checkpoints on a thread of its own until the group shuts down gracefully.
    package func run() async throws {
        try await thread.run { [self] thread in
            started.store(true, ordering: .relaxed)
            defer { finished.signal() }
            turns(thread)
        }
    }

    private func turns(_ thread: ServiceThread<Never>) {
        let clock = ContinuousClock()
        var schedule = RestartSchedule(backoff: Self.restartBackoff, maxBackoff: Self.maxRestartBackoff)
        var lastTurn = (at: clock.now, walBytes: Int64(0))
        var pause = intervals.upperBound
        /// The WAL's bytes, once whatever readers allow is copied into the file and synced.
        func copyAndSync() throws -> Int64 {
            try connection.writeWithoutTransaction { db in
                let frames = try db.checkpoint(.passive).walFrameCount
                try Self.syncFile(db)
                return Int64(frames) * frameBytes
            }
        }
        var erasureRefusedSince: ContinuousClock.Instant?
        while !thread.isStopping {
            let waiting = turnWaiters.withLock { waiters in
                defer { waiters.waiting = [] }
                return waiters.waiting
            }
            if eraseRequested.load(ordering: .acquiring) {
                do {
                    _ = try copyAndSync()
                    _ = try connection.writeWithoutTransaction { try $0.checkpoint(.truncate) }
                    eraseRequested.store(false, ordering: .releasing)
                    erasures.add(1, ordering: .relaxed)
                    if let since = erasureRefusedSince {
                        logger.info("WAL emptied after a deletion", metadata: ["path": "\(path)", "waited s": "\((clock.now - since) / .seconds(1))"])
                    }
                    erasureRefusedSince = nil
                } catch {
                    // A reader in the WAL (a snapshot being copied, a replay's verify) or a
                    // failing disk: tried again every `eraseRetry` until it goes.
                    if erasureRefusedSince == nil {
                        erasureRefusedSince = clock.now
                        logger.warning("could not empty the WAL after a deletion yet; retrying", metadata: [
                            "path": "\(path)", "error": "\(error)"])
                    }
                }
            }
            do {
                let walBytes = try copyAndSync()
                let now = clock.now
                if walBytes > walLimitBytes, schedule.isDue(walBytes: walBytes, now: now) {
                    do {
                        // Again, for what came during the first sync (tens of ms under load),
                        // which the RESTART would otherwise copy and sync holding the writer.
                        // Only a help: whatever makes it fail, the RESTART meets and tells.
                        _ = try? copyAndSync()
                        _ = try connection.writeWithoutTransaction { try $0.checkpoint(.restart) }
                        restarts.add(1, ordering: .relaxed)
                        if schedule.refusalsInARow > 0 {
                            logger.info("WAL started over", metadata: ["path": "\(path)", "refused before": "\(schedule.refusalsInARow)"])
                        }
                        schedule.succeeded()
                    } catch DatabaseError.SQLITE_BUSY {
                        refusedRestarts.add(1, ordering: .relaxed)
                        schedule.refused(walBytes: walBytes, now: clock.now)
                        if schedule.refusalsInARow == 1 {
                            logger.warning("a reader stays in the WAL, which cannot start over and grows until it leaves", metadata: [
                                "path": "\(path)", "wal MiB": "\(walBytes >> 20)"])
                        }
                    }
                }
                // Over the limit the turn that may try the RESTART is what is due: the next,
                // unless a reader refused the last; then the backoff's end or the WAL's doubling.
                pause = walBytes > walLimitBytes
                    ? min(max((schedule.notBefore - clock.now) / .seconds(1), intervals.lowerBound),
                          Self.pause(walBytes: walBytes, limit: schedule.orOnceWALHolds, since: lastTurn, now: now, intervals: intervals))
                    : Self.pause(walBytes: walBytes, limit: walLimitBytes, since: lastTurn, now: now, intervals: intervals)
                lastTurn = (now, walBytes)
            } catch DatabaseError.SQLITE_BUSY {
                // Another connection's checkpoint is under way: the next turn tries again.
            } catch {
                // A failing disk fails every turn: one line a second says so, not twenty.
                logger.warning("background checkpoint failed", metadata: ["error": "\(error)"])
                pause = intervals.upperBound
            }
            if eraseRequested.load(ordering: .relaxed) { pause = min(pause, Self.eraseRetry) }
            waiting.forEach { $0.signal() }
            // A timed pause, cut short by `turn()`, `eraseWAL()` or the group's shutdown.
            thread.waitForWake(timeout: .seconds(pause))
            _ = thread.takeMessages()
        }
        try? connection.close()
        turnWaiters.withLock { waiters in
            defer { waiters = ([], true) }
            return waiters.waiting
        }.forEach { $0.signal() }
    }

    /// How long the thread sleeps after a turn that found `walBytes` in the WAL: until the WAL,
    /// growing as fast as it did since `since`, would hold `limit`, within `intervals`. A WAL that
    /// started over in between grew at least what it now holds.
    static func pause(walBytes: Int64, limit: Int64, since last: (at: ContinuousClock.Instant, walBytes: Int64),
                      now: ContinuousClock.Instant, intervals: ClosedRange<TimeInterval>) -> TimeInterval {
        let grown = walBytes >= last.walBytes ? walBytes - last.walBytes : walBytes
        let elapsed = (now - last.at) / .seconds(1)
        guard grown > 0, elapsed > 0 else { return walBytes < limit ? intervals.upperBound : intervals.lowerBound }
        let untilLimit = Double(limit - walBytes) / (Double(grown) / elapsed)
        return min(max(untilLimit, intervals.lowerBound), intervals.upperBound)
    }

    /// When a RESTART may be tried: at every turn over the limit until a reader refuses one; then
    /// once the backoff (doubled at each refusal in a row) has passed or the WAL has doubled since
    /// the refusal, whichever is first. The doubling bounds what a briefly slowed reader costs in
    /// WAL, and a reader that stays costs a try per doubling, each holding the writer `restartWait`.
    struct RestartSchedule {
        let backoff: Duration
        let maxBackoff: Duration
        private(set) var refusalsInARow = 0
        private(set) var notBefore = ContinuousClock.now
        private(set) var orOnceWALHolds: Int64 = 0

        func isDue(walBytes: Int64, now: ContinuousClock.Instant) -> Bool {
            now >= notBefore || walBytes >= orOnceWALHolds
        }

        mutating func refused(walBytes: Int64, now: ContinuousClock.Instant) {
            refusalsInARow += 1
            notBefore = now + min(backoff * (1 << min(refusalsInARow - 1, 16)), maxBackoff)
            orOnceWALHolds = 2 * walBytes
        }

        mutating func succeeded() {
            refusalsInARow = 0
            orOnceWALHolds = 0
        }
    }

    /// Writes to disk the pages that checkpoints copied into the file, holding no lock: a passive
    /// checkpoint that stops short of the WAL's end (nearly all, under writes) leaves them unsynced,
    /// so the RESTART's sync flushed a whole limit's worth (14-18 ms) while it held the writer.
    /// Through SQLite's own handle of the file: a descriptor opened beside it would, once closed,
    /// drop the process's POSIX locks on the file.
    private static func syncFile(_ db: Database) throws {
        var file: UnsafeMutablePointer<sqlite3_file>?
        var code = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        if code == SQLITE_OK, let file, let sync = file.pointee.pMethods?.pointee.xSync {
            code = sync(file, SQLITE_SYNC_NORMAL)
        }
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }

    /// A deletion was committed: the WAL's older frames still hold what it erased (SQLite's
    /// `secure_delete` overwrites the rows only in the pages it writes). The thread, woken now,
    /// copies the whole WAL into the file and truncates it (TRUNCATE), which needs every reader
    /// out of the WAL and holds the writer while it copies (a few ms: a deletion is rare); a
    /// reader that stays makes it try again every `eraseRetry`. Returns at once.
    package func eraseWAL() {
        eraseRequested.store(true, ordering: .releasing)
        thread.wake()
    }

    /// Starts a turn now and returns once it has ended: what was committed before this call is then
    /// in the file, as far as readers allowed. For tests, which wait on this rather than on the
    /// file's size; at once if the thread has ended.
    func turn() {
        let done = DispatchSemaphore(value: 0)
        guard turnWaiters.withLock({ waiters in
            if !waiters.closed { waiters.waiting.append(done) }
            return !waiters.closed
        }) else { return }
        thread.wake()
        done.wait()
    }

    /// Ends the thread after its current checkpoint and waits for it, for tests that run the
    /// checkpointer outside a service group. At once if it has not started.
    func stop() {
        thread.stop()
        if started.load(ordering: .relaxed) { finished.wait() }
    }
}
