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
        let snapshotInterval = try config.workerSnapshotInterval()
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
        let projection = try ProjectionCatalog.named(name.rawValue)
        let file = ProjectionStore.fileURL(name: name.rawValue, directory: directory.projections).path
        if remote {
            let service = RemoteEventStore(context: context, endpoint: endpoints.log)
            // A new host: a recent copy of the projection from the log service, checked, instead
            // of folding the whole log (which is what happens when there is none or it is refused).
            if !FileManager.default.fileExists(atPath: file) {
                _ = SnapshotFetch.fetch(name, layout: projection.layoutVersion, from: service, to: file, logger: logger)
            }
            (reader, keys) = (service, nil)
        } else {
            guard let log = try options.waitForLog(directory, logger: logger) else { return }
            (reader, keys) = (log, try UserKeyStore(path: directory.userKeys, readOnly: true))
        }
        let store = try ProjectionStore.open(name: name.rawValue, directory: directory.projections, keys: keys,
                                             checkpointsInBackground: true, logger: logger)
        let checkpointer = try BackgroundCheckpointer(path: store.path, logger: logger)
        // Copies for the core's log service, which serves them from the core's data directory: a
        // worker reading the log itself shares it (the core's host); one on another host does not.
        var services: [any Service] = [checkpointer]
        var snapshots: ProjectionSnapshots?
        if !remote, let snapshotInterval {
            let copies = try ProjectionSnapshots(directory: directory.snapshots, projection: name, layout: projection.layoutVersion)
            services.append(try SnapshotWriter(snapshots: copies, path: store.path, interval: snapshotInterval, logger: logger))
            snapshots = copies
        }
        let worker = try ProjectionWorker(
            store: store, log: reader, context: context, feed: endpoints.events, feedHighWaterMark: endpoints.feedHighWaterMark,
            queryEndpoint: endpoints.queries(of: name), snapshots: snapshots, erased: { checkpointer.eraseWAL() }, logger: logger)
        defer { context.shutdown() }
        try await runServices(services + [worker], logger: logger)
        // A stopped worker leaves the main file alone: the WAL's older frames would otherwise keep
        // what a deletion erased (a username, a tip) until the next start's checkpoint.
        try store.checkpointWAL()
    }
}

extension WorkerName: ExpressibleByArgument {}
