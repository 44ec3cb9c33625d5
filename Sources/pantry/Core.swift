import ArgumentParser
import Foundation
import Logging
import PantryBus
import PantryCore
import PantryEventStore
import PantryKeys
import PantryPostgresLog
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
        let logReader = try options.openExistingLog(directory, logger: logger)
        let logServer = try LogServer(log: logReader,
                                      vault: UserKeyStore(path: directory.userKeys, readOnly: true),
                                      context: context, endpoint: endpoints.log, snapshots: directory.snapshots, logger: logger)
        let snapshots = processor.snapshotWriter
        let server = try CoreServer(processor: processor, context: context,
                                    configuration: .init(endpoints: endpoints), logger: logger)
        let postgres = [store, logReader].compactMap { $0 as? PostgresEventStore }
        let interrupter = postgres.isEmpty ? nil : StorageInterrupter(stores: postgres, logger: logger)
        // Stopped in reverse: the interrupter first (it returns at once), the server, then the
        // snapshot being written, the checkpointer and the log service.
        let services: [(any Service)?] = [logServer, checkpointer, snapshots, server, interrupter]
        try await runServices(services.compactMap { $0 }, logger: logger)
    }
}

/// Lets a core stop while its PostgreSQL server is gone: when graceful shutdown begins it gives
/// the batch being written `grace` to finish, then interrupts the stores, so that a thread
/// waiting on a dead connection (or on its retries) returns at once rather than after its
/// deadline, and the services after it stop. Listed last, so it is told first; it returns at once.
struct StorageInterrupter: Service {
    var stores: [PostgresEventStore]
    var grace: Duration = .milliseconds(500)
    var logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        let (stores, grace, logger) = (stores, grace, logger)
        // Not awaited: the core's server is stopped meanwhile, and the process ends when it has.
        Task {
            try? await Task.sleep(for: grace)
            logger.info("stopping: the PostgreSQL log's calls under way are interrupted")
            for store in stores { store.interrupt() }
        }
    }
}

/// Runs the process's one service group until SIGTERM or SIGINT (honcho, Ctrl-C), then shuts its
/// services down gracefully, the last listed first, and returns.
func runServices(_ services: [any Service], logger: Logger) async throws {
    try await ServiceGroup(configuration: .init(
        services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
}
