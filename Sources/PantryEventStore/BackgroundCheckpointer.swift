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
/// 20 minutes). So once the WAL passes `walLimitBytes`, a RESTART checkpoint waits up to
/// `restartWait` for the readers to leave the WAL, holding the writer off that long at most; the
/// next commit then writes from the WAL's start, and `journal_size_limit` (set by the writer)
/// truncates the file.
public final class BackgroundCheckpointer: Sendable {
    public static let walLimitBytes: Int64 = 16 << 20
    static let restartWait: TimeInterval = 0.1

    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    public init(path: String, interval: TimeInterval = 0.2, logger: Logger) throws {
        var config = Configuration()
        config.label = "checkpointer"
        config.busyMode = .timeout(Self.restartWait)
        let connection = try DatabaseQueue(path: path, configuration: config)
        let wal = path + "-wal"
        let thread = Thread { [self] in
            defer { finished.signal() }
            while !stopping.load(ordering: .relaxed) {
                do {
                    try connection.writeWithoutTransaction { db in
                        _ = try db.checkpoint(.passive)
                        if Self.size(of: wal) > Self.walLimitBytes { _ = try db.checkpoint(.restart) }
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

    static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Ends the thread after its current checkpoint.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }
}
