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

    @Option(name: [.customLong("core-commands"), .customLong("commands")],
            help: "Command endpoint (ROUTER); default ipc:// in the data directory, or PANTRY_CORE_COMMANDS.")
    var commands: String?

    @Option(name: [.customLong("core-events"), .customLong("events")],
            help: "Event feed endpoint (PUB); default ipc:// in the data directory, or PANTRY_CORE_EVENTS.")
    var events: String?

    @Option(name: [.customLong("core-log"), .customLong("log-service")],
            help: "Log service endpoint (ROUTER, range reads for workers and the API); default ipc:// in the data directory, or PANTRY_CORE_LOG.")
    var logService: String?

    @Option(help: "Events between two snapshots of the core's state (a start folds only the log after the last); default PANTRY_SNAPSHOT_EVERY or 100000.")
    var snapshotEvery: Int64?

    @Option(help: "MiB the core may keep of accepted command ids (2 bytes each) so new commands need no idempotency lookup; past it, or with 0, every id is looked up in the log. Default PANTRY_COMMAND_ID_FILTER_MIB or 64.")
    var commandIdFilterMib: Int?

    func run() async throws {
        let config = try self.options.configuration([
            "core-commands": commands, "core-events": events, "core-log": logService,
            "snapshot-every": snapshotEvery, "command-id-filter-mib": commandIdFilterMib,
        ])
        let options = try config.deployment()
        let directory = try DataDirectory(options.data)
        let endpoints = try config.endpoints(directory.url).bus
        let settings = try config.core()
        bootstrapLogging(options.logLevel)
        let logger = Logger(label: "pantry.core")
        let lock = try WriterLock(path: directory.writerLock)
        defer { withExtendedLifetime(lock) {} }

        let (store, location) = try options.openLogForWriting(directory, checkpointsInBackground: true, logger: logger)
        logger.info("event log", metadata: ["log": "\(location)"])
        let processor = try CommandProcessor(
            store: store, keys: UserKeyStore(path: directory.userKeys, readOnly: false),
            erasures: ErasureLedger(path: directory.erasures), snapshotPath: directory.coreSnapshot, snapshotEvery: settings.snapshotEvery,
            deletionSnapshotInterval: settings.deletionSnapshotInterval,
            commandIdFilterBytes: settings.commandIdFilterMiB << 20, paces: settings.paces, logger: logger)
        // WAL checkpoints are the SQLite file's; PostgreSQL checkpoints by itself. The snapshot
        // is a file in the data directory whatever the log.
        let checkpointer = try location.sqlitePath.map { try BackgroundCheckpointer(path: $0, logger: logger) }
        let context = try endpoints.makeContext(logger: logger)
        defer { context.shutdown() }
        // The log service reads with its own connections, beside the writer, on a thread of its own.
        let logServer = try LogServer(log: options.openExistingLog(directory, logger: logger),
                                      vault: UserKeyStore(path: directory.userKeys, readOnly: true),
                                      context: context, endpoint: endpoints.log, snapshots: directory.snapshots, logger: logger)
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
