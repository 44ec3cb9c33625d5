import Foundation
import GRDB
import Logging
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
/// A RESTART holds the writer for the rest of the copy and an fsync of the file (3-25 ms here), so
/// the limit sets how often a commit waits that long: at 16 MiB, every 0.4 s at 3,500 increments/s,
/// which made the increments' p99 at half rate 25 ms. The WAL's size is read from its frames, not
/// its file, which is left at its size (`journalSizeLimit`, set by the writer, cuts back only a WAL
/// that a burst made larger): a commit that overwrites blocks the file already has is synced without
/// the file's size and blocks, whereas one that grows the file syncs those too.
///
/// A reader that stays in the WAL (a backup copying the log, a long read) makes every RESTART wait
/// `restartWait` and give up, holding the writer all that time: tried every turn with a 0.1 s wait,
/// that held it a third of the time. Readers that come and go leave within a few milliseconds,
/// which the wait, polled every 0.2 ms, covers; after a refusal the next try waits
/// `restartBackoff`, doubled at each refusal up to `maxRestartBackoff`, and the refusal is logged
/// once until a RESTART succeeds.
public final class BackgroundCheckpointer: Sendable {
    public static let walLimitBytes: Int64 = 64 << 20
    /// The writers' `journal_size_limit`: a WAL restarted at `walLimitBytes` keeps its blocks.
    public static let journalSizeLimit = 2 * walLimitBytes
    static let restartWait: TimeInterval = 0.02
    static let restartBackoff: Duration = .seconds(1)
    static let maxRestartBackoff: Duration = .seconds(30)

    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// RESTART checkpoints that succeeded, and that readers made give up, for tests.
    let restarts = Atomic<Int>(0)
    let refusedRestarts = Atomic<Int>(0)

    public init(path: String, walLimitBytes: Int64 = walLimitBytes, interval: TimeInterval = 0.2, logger: Logger) throws {
        var config = Configuration()
        config.label = "checkpointer"
        config.busyMode = .retrying(for: Self.restartWait)
        let connection = try DatabaseQueue(path: path, configuration: config)
        let frameBytes = try connection.read { try Int64.fetchOne($0, sql: "PRAGMA page_size") ?? 4096 } + 24
        let thread = Thread { [self] in
            defer { finished.signal() }
            let clock = ContinuousClock()
            var nextRestart = clock.now
            var refusalsInARow = 0
            while !stopping.load(ordering: .relaxed) {
                do {
                    let walBytes = try Int64(connection.writeWithoutTransaction { try $0.checkpoint(.passive).walFrameCount }) * frameBytes
                    if walBytes > walLimitBytes, clock.now >= nextRestart {
                        do {
                            _ = try connection.writeWithoutTransaction { try $0.checkpoint(.restart) }
                            restarts.add(1, ordering: .relaxed)
                            if refusalsInARow > 0 {
                                logger.info("WAL started over", metadata: ["path": "\(path)", "refused before": "\(refusalsInARow)"])
                            }
                            refusalsInARow = 0
                        } catch DatabaseError.SQLITE_BUSY {
                            refusedRestarts.add(1, ordering: .relaxed)
                            refusalsInARow += 1
                            if refusalsInARow == 1 {
                                logger.warning("a reader stays in the WAL, which cannot start over and grows until it leaves", metadata: [
                                    "path": "\(path)", "wal MiB": "\(walBytes >> 20)"])
                            }
                            nextRestart = clock.now + min(Self.restartBackoff * (1 << min(refusalsInARow - 1, 5)), Self.maxRestartBackoff)
                        }
                    }
                } catch DatabaseError.SQLITE_BUSY {
                    // Another connection's checkpoint is under way: the next turn tries again.
                } catch {
                    logger.warning("background checkpoint failed", metadata: ["error": "\(error)"])
                }
                Thread.sleep(forTimeInterval: interval)
            }
            try? connection.close()
        }
        thread.name = "checkpointer"
        thread.start()
    }

    /// Ends the thread after its current checkpoint.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }
}
