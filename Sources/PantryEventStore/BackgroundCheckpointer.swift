import Foundation
import GRDB
import Logging
import Synchronization

/// Copies an SQLite file's WAL into the file on a thread of its own, so the process that writes it
/// never stops for a checkpoint's fsync: SQLite would otherwise run one inside whichever commit
/// crosses 1,000 pages. In the core that stalled a group commit by 10-60 ms several times a
/// second; in a worker, an event's visibility. Open the log or the projection with
/// `checkpointsInBackground: true`. Checkpoints are PASSIVE: they never wait for, nor block, the
/// writer or readers.
public final class BackgroundCheckpointer: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    public init(path: String, interval: TimeInterval = 0.2, logger: Logger) throws {
        var config = Configuration()
        config.label = "checkpointer"
        config.busyMode = .timeout(10)
        let connection = try DatabaseQueue(path: path, configuration: config)
        let thread = Thread { [self] in
            defer { finished.signal() }
            while !stopping.load(ordering: .relaxed) {
                do {
                    try connection.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
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
