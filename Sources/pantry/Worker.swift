import ArgumentParser
import Foundation
import Logging
import PantryBus
import PantryCore
import PantryEventStore
import PantryKeys
import PantryProjections
import PantryWorkers
import ZeroMQ

struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a projection worker: keeps one read model current and answers queries about it.",
        discussion: "Projections: \(ProjectionCatalog.names.joined(separator: ", ")).")

    @Argument(help: "The projection to keep.")
    var name: String

    @OptionGroup var options: DataOptions

    @Option(help: "The core's log service (e.g. tcp://core:5557), read instead of the log's file when set; or PANTRY_CORE_LOG.")
    var log: String?

    func validate() throws {
        guard ProjectionCatalog.names.contains(name) else {
            throw ValidationError("there is no projection '\(name)'; choose one of \(ProjectionCatalog.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        bootstrapLogging()
        let logger = Logger(label: "pantry.worker.\(name)")
        let directory = try DataDirectory(options.data)
        try FileManager.default.createDirectory(at: directory.projections, withIntermediateDirectories: true)
        let lock = try WriterLock(path: directory.workerLock(name))
        defer { withExtendedLifetime(lock) {} }
        let context = try ZMQContext()
        var endpoints = BusEndpoints(dataDirectory: directory.url)
        if let log { endpoints.log = log }
        // With the log service named (another host) it answers, with sealed fields opened: the
        // worker needs only its own directory. Without it the log is on this host, and its file is
        // read directly, so gaps are repaired even while the core restarts.
        let remote = log != nil || ProcessInfo.processInfo.environment["PANTRY_CORE_LOG"] != nil
        let file = remote ? nil : try openLogForReading(directory, logger: logger)
        let reader: any EventStore = file ?? RemoteEventStore(context: context, endpoint: endpoints.log)
        let store = try ProjectionStore.open(name: name, directory: directory.projections,
                                             keys: try file.map { _ in try UserKeyStore(path: directory.userKeys, readOnly: true) },
                                             checkpointsInBackground: true, logger: logger)
        let checkpointer = try BackgroundCheckpointer(path: store.path, logger: logger)
        defer { checkpointer.stop() }
        let worker = try ProjectionWorker(
            store: store, log: reader, context: context, feed: endpoints.events,
            queryEndpoint: BusEndpoints.queries(of: name, dataDirectory: directory.url), logger: logger)
        let signals = stopOnSignals { context.shutdown() }
        defer { withExtendedLifetime(signals) {} }
        try worker.run()
    }
}

/// Workers may start before the core has created the log: they wait for it rather than fail.
func openLogForReading(_ directory: DataDirectory, logger: Logger) throws -> SQLiteEventStore {
    var announced = false
    while true {
        if let log = try SQLiteEventStore.openForReading(path: directory.eventLog) { return log }
        if !announced { logger.info("waiting for the event log", metadata: ["path": "\(directory.eventLog)"]) }
        announced = true
        Thread.sleep(forTimeInterval: 0.2)
    }
}
