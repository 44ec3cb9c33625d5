import ArgumentParser
import Foundation
import Logging
import PantryBus
import PantryCore
import PantryEventStore
import PantryKeys
import PantryProjections
import PantryWire
import PantryWorkers
import ServiceLifecycle
import ZeroMQ
import PantryLog

struct Worker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a projection worker: keeps one read model current and answers queries about it.",
        discussion: "Projections: \(WorkerName.allCases.map(\.rawValue).joined(separator: ", ")).")

    @Argument(help: "The projection to keep.")
    var name: WorkerName

    @OptionGroup var options: DataOptions

    @Option(name: [.customLong("core-log"), .customLong("log-service")],
            help: "The core's log service (e.g. tcp://core:5557), read instead of the log itself when set; or PANTRY_CORE_LOG.")
    var logService: String?

    func run() async throws {
        let config = try self.options.configuration(["core-log": logService])
        let options = try config.deployment()
        let directory = try DataDirectory(options.data)
        let (endpoints, remote) = try config.endpoints(directory.url)
        bootstrapLogging(options.logLevel)
        let logger = Logger(label: "pantry.worker.\(name)")
        try FileManager.default.createDirectory(at: directory.projections, withIntermediateDirectories: true)
        let lock = try WriterLock(path: directory.workerLock(name.rawValue))
        defer { withExtendedLifetime(lock) {} }
        let context = try endpoints.makeContext(logger: logger)
        // With the log service named (another host) it answers, with sealed fields opened: the
        // worker needs only its own directory. Without it the log is read directly (the file on
        // this host, or PostgreSQL), so gaps are repaired even while the core restarts.
        let (reader, keys): (any EventLogReader, UserKeyStore?)
        if remote {
            (reader, keys) = (RemoteEventStore(context: context, endpoint: endpoints.log), nil)
        } else {
            guard let log = try options.waitForLog(directory, logger: logger) else { return }
            (reader, keys) = (log, try UserKeyStore(path: directory.userKeys, readOnly: true))
        }
        let store = try ProjectionStore.open(name: name.rawValue, directory: directory.projections, keys: keys,
                                             checkpointsInBackground: true, logger: logger)
        let checkpointer = try BackgroundCheckpointer(path: store.path, logger: logger)
        let worker = try ProjectionWorker(
            store: store, log: reader, context: context, feed: endpoints.events, feedHighWaterMark: endpoints.feedHighWaterMark,
            queryEndpoint: endpoints.queries(of: name), logger: logger)
        defer { context.shutdown() }
        try await runServices([checkpointer, worker], logger: logger)
        // A stopped worker leaves the main file alone: the WAL's older frames would otherwise keep
        // what a deletion erased (a username, a tip) until the next start's checkpoint.
        try store.checkpointWAL()
    }
}

extension WorkerName: ExpressibleByArgument {}
