import ArgumentParser
import Foundation
import Logging
import PantryBus
import PantryCore
import PantryEventStore
import PantryKeys
import ServiceLifecycle
import ZeroMQ

struct Core: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the core: the single writer of the log, serving commands over ZeroMQ and publishing events.")

    @OptionGroup var options: DataOptions

    @Option(help: "Command endpoint (ROUTER); default ipc:// in the data directory, or PANTRY_CORE_COMMANDS.")
    var commands: String?

    @Option(help: "Event feed endpoint (PUB); default ipc:// in the data directory, or PANTRY_CORE_EVENTS.")
    var events: String?

    @Option(help: "Log service endpoint (ROUTER, range reads for workers and the API); default ipc:// in the data directory, or PANTRY_CORE_LOG.")
    var logService: String?

    @Option(help: "Events between two snapshots of the core's state (a start folds only the log after the last).")
    var snapshotEvery: Int64 = 100_000

    @Option(help: "MiB the core may keep of accepted command ids (2 bytes each) so new commands need no idempotency lookup; past it, or with 0, every id is looked up in the log.")
    var commandIdFilterMib = 64

    func validate() throws {
        guard (0...1 << 20).contains(commandIdFilterMib) else {
            throw ValidationError("--command-id-filter-mib must be 0-1048576")
        }
    }

    func run() async throws {
        bootstrapLogging()
        let logger = Logger(label: "pantry.core")
        let directory = try DataDirectory(options.data)
        let lock = try WriterLock(path: directory.writerLock)
        defer { withExtendedLifetime(lock) {} }
        var endpoints = try BusEndpoints(directory, environment: ProcessInfo.processInfo.environment, logService: logService)
        if let commands { endpoints.commands = commands }
        if let events { endpoints.events = events }

        let (store, location) = try options.openLogForWriting(directory, checkpointsInBackground: true, logger: logger)
        logger.info("event log", metadata: ["log": "\(location)"])
        let processor = try CommandProcessor(
            store: store, keys: UserKeyStore(path: directory.userKeys, readOnly: false),
            snapshotPath: directory.coreSnapshot, snapshotEvery: snapshotEvery, commandIdFilterBytes: commandIdFilterMib << 20,
            logger: logger)
        // WAL checkpoints are the SQLite file's; PostgreSQL checkpoints by itself. The snapshot
        // is a file in the data directory whatever the log.
        let checkpointer = try location.sqlitePath.map { try BackgroundCheckpointer(path: $0, logger: logger) }
        let context = try ZMQContext()
        defer { context.shutdown() }
        // The log service reads with its own connections, beside the writer, on a thread of its own.
        let logServer = try LogServer(log: options.openExistingLog(directory, logger: logger),
                                      vault: UserKeyStore(path: directory.userKeys, readOnly: true),
                                      context: context, endpoint: endpoints.log, logger: logger)
        let snapshots = processor.snapshotWriter
        let server = try CoreServer(processor: processor, context: context,
                                    configuration: .init(endpoints: endpoints), logger: logger)
        // Stopped in reverse: the server first, then the snapshot being written, the checkpointer
        // and the log service.
        try await runServices([logServer] + [checkpointer, snapshots].compactMap { $0 } + [server], logger: logger)
    }
}

/// Runs the process's one service group until SIGTERM or SIGINT (honcho, Ctrl-C), then shuts its
/// services down gracefully, the last listed first, and returns.
func runServices(_ services: [any Service], logger: Logger) async throws {
    try await ServiceGroup(configuration: .init(
        services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
}
