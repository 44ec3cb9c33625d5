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
        guard let log = try options.waitForLog(directory, logger: logger) else { return }
        let store = try ProjectionStore.open(name: name, directory: directory.projections,
                                             keys: try UserKeyStore(path: directory.userKeys, readOnly: true),
                                             checkpointsInBackground: true, logger: logger)
        let checkpointer = try BackgroundCheckpointer(path: store.path, logger: logger)
        defer { checkpointer.stop() }
        let context = try ZMQContext()
        let worker = try ProjectionWorker(
            store: store, log: log, context: context, feed: BusEndpoints(dataDirectory: directory.url).events,
            queryEndpoint: BusEndpoints.queries(of: name, dataDirectory: directory.url), logger: logger)
        let signals = stopOnSignals { context.shutdown() }
        defer { withExtendedLifetime(signals) {} }
        try worker.run()
    }
}
