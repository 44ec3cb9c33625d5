import ArgumentParser
import Foundation
import Logging
import PantryCore
import PantryEventStore
import PantryPostgresLog

/// Where the log is: the SQLite file in the data directory (the default), or a PostgreSQL
/// database named by the `log` key (`--log`, `PANTRY_LOG`).
enum LogLocation: CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLogAddress)

    var sqlitePath: String? {
        if case .sqlite(let path) = self { path } else { nil }
    }

    var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let address): address.description
        }
    }
}

extension Deployment {
    func logLocation(_ directory: DataDirectory) throws -> LogLocation {
        postgres.map { .postgres($0) } ?? .sqlite(path: directory.eventLog)
    }

    /// The log as its writer opens it (the core, `submit` without a core, `migrate-log`'s target).
    func openLogForWriting(_ directory: DataDirectory, checkpointsInBackground: Bool = false, logger: Logger) throws -> (any EventStore, LogLocation) {
        let location = try logLocation(directory)
        switch location {
        case .sqlite(let path):
            return (try SQLiteEventStore(path: path, checkpointsInBackground: checkpointsInBackground), location)
        case .postgres(let address):
            return (try PostgresEventStore(address: address, timeout: logTimeout, logger: logger), location)
        }
    }

    /// A reader of a log that exists (stats, events, status, replay): a clear error when it does not.
    func openExistingLog(_ directory: DataDirectory, logger: Logger = Logger(label: "pantry.log")) throws -> any EventStore {
        let location = try logLocation(directory)
        guard let log = try openForReading(location, logger: logger) else {
            throw ValidationError("there is no event log at \(location)")
        }
        return log
    }

    /// A reader of a log that the core may not have made yet (workers, the API): waits for it
    /// rather than fail, until `stopping` says to give up (nil then). A PostgreSQL server that
    /// does not answer yet is waited for too (the processes of a host may start before it).
    func waitForLog(_ directory: DataDirectory, logger: Logger, stopping: () -> Bool = { false }) throws -> (any EventStore)? {
        let location = try logLocation(directory)
        var announced = false
        while !stopping() {
            do {
                if let log = try openForReading(location, logger: logger) { return log }
                if !announced { logger.info("waiting for the event log", metadata: ["log": "\(location)"]) }
            } catch where location.sqlitePath == nil {
                if !announced { logger.warning("waiting for the event log's server", metadata: ["log": "\(location)", "error": "\(error)"]) }
            }
            announced = true
            Thread.sleep(forTimeInterval: 0.2)
        }
        return nil
    }

    private func openForReading(_ location: LogLocation, logger: Logger) throws -> (any EventStore)? {
        switch location {
        case .sqlite(let path): try SQLiteEventStore.openForReading(path: path)
        case .postgres(let address): try PostgresEventStore.openForReading(address: address, timeout: logTimeout, logger: logger)
        }
    }
}
