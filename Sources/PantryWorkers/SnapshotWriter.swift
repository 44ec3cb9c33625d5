import Foundation
import Logging
import PantryThreads
import ServiceLifecycle

/// Leaves a fresh copy of the worker's projection for the log service every `interval`, on a
/// thread of its own: a copy of a file of hundreds of MB takes seconds, which the worker's loop
/// (feed, queries) must not wait for; SQLite's WAL lets the copy read while the worker writes.
package final class SnapshotWriter: Service {
    private let snapshots: ProjectionSnapshots
    private let path: String
    private let interval: Duration
    private let thread: ServiceThread<Never>
    private let logger: Logger

    package init(snapshots: ProjectionSnapshots, path: String, interval: Duration, logger: Logger) throws {
        self.snapshots = snapshots
        self.path = path
        self.interval = interval
        self.logger = logger
        thread = try ServiceThread(name: "snapshots")
    }

    package func run() async throws {
        try await thread.run { [self] thread in
            while !thread.isStopping {
                _ = thread.waitForWake(timeout: interval)
                _ = thread.takeMessages()
                guard !thread.isStopping else { break }
                let clock = ContinuousClock(), started = clock.now
                do {
                    if let manifest = try snapshots.publish(from: path) {
                        logger.info("snapshot left for the log service", metadata: [
                            "position": "\(manifest.position)", "bytes": "\(manifest.size)",
                            "seconds": "\((clock.now - started) / .seconds(1))",
                        ])
                    }
                } catch {
                    logger.warning("could not leave a snapshot for the log service", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
