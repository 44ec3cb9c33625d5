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
/// A RESTART holds the writer for the rest of the copy and an fsync of the file (10-25 ms here), so
/// the limit sets how often a commit waits that long: at 16 MiB, every 0.4 s at 3,500 increments/s,
/// which made the increments' p99 at half rate 25 ms. The WAL's size is read from its frames, not
/// its file, which is left at its size (`journalSizeLimit`, set by the writer, cuts back only a WAL
/// that a burst made larger): a commit that overwrites blocks the file already has is synced without
/// a journal commit of the file system, whereas one that grows the file waits for one.
public final class BackgroundCheckpointer: Sendable {
    public static let walLimitBytes: Int64 = 64 << 20
    /// The writers' `journal_size_limit`: a WAL restarted at `walLimitBytes` keeps its blocks.
    public static let journalSizeLimit = 2 * walLimitBytes
    static let restartWait: TimeInterval = 0.1

    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    public init(path: String, walLimitBytes: Int64 = walLimitBytes, interval: TimeInterval = 0.2, logger: Logger) throws {
        var config = Configuration()
        config.label = "checkpointer"
        config.busyMode = .retrying(for: Self.restartWait)
        let connection = try DatabaseQueue(path: path, configuration: config)
        let frameBytes = try connection.read { try Int64.fetchOne($0, sql: "PRAGMA page_size") ?? 4096 } + 24
        let thread = Thread { [self] in
            defer { finished.signal() }
            while !stopping.load(ordering: .relaxed) {
                do {
                    try connection.writeWithoutTransaction { db in
                        let frames = try db.checkpoint(.passive).walFrameCount
                        if Int64(frames) * frameBytes > walLimitBytes { _ = try db.checkpoint(.restart) }
                    }
                } catch DatabaseError.SQLITE_BUSY {
                    // Readers stayed in the WAL longer than `restartWait`: the next turn tries again.
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
