import Foundation

/// Where the processes meet. By default `ipc://` sockets in the data directory; each can be set to
/// `tcp://HOST:PORT` through the environment (`PANTRY_CORE_COMMANDS`, `PANTRY_CORE_EVENTS`,
/// `PANTRY_CORE_LOG`, `PANTRY_<NAME>_QUERIES`) or flags.
public struct BusEndpoints: Sendable, Equatable {
    public var commands: String
    public var events: String
    /// The log service's range reads (`LogServer`): what a worker or the API reads instead of the log's file.
    public var log: String

    public init(commands: String, events: String, log: String) {
        self.commands = commands
        self.events = events
        self.log = log
    }

    public init(dataDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        commands = environment["PANTRY_CORE_COMMANDS"] ?? "ipc://\(dataDirectory.appendingPathComponent("core-commands.sock").path)"
        events = environment["PANTRY_CORE_EVENTS"] ?? "ipc://\(dataDirectory.appendingPathComponent("core-events.sock").path)"
        log = environment["PANTRY_CORE_LOG"] ?? "ipc://\(dataDirectory.appendingPathComponent("core-log.sock").path)"
    }

    /// Messages the feed buffers per subscriber, on each side, before ZeroMQ drops them and the
    /// subscriber has to read the log (`PANTRY_FEED_HIGH_WATER_MARK`; tests lower it to force drops).
    /// It bounds what a stuck subscriber costs the core: at most this many messages (about 0.5 KB
    /// each, so about 10 MB), against 100,000 (50 MB each) before; a live worker that falls this far
    /// behind (0.4 s of the core's peak rate) reads the rest from the log, as after any gap.
    public static func feedHighWaterMark(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        environment["PANTRY_FEED_HIGH_WATER_MARK"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 20_000
    }

    /// Where the fetch worker answers recipe requests (`PANTRY_FETCH_ENDPOINT`).
    public static func fetch(dataDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["PANTRY_FETCH_ENDPOINT"] ?? "ipc://\(dataDirectory.appendingPathComponent("fetch.sock").path)"
    }

    /// The request/reply endpoint a worker answers queries on.
    public static func queries(of worker: String, dataDirectory: URL,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["PANTRY_\(worker.uppercased())_QUERIES"]
            ?? "ipc://\(dataDirectory.appendingPathComponent("\(worker)-queries.sock").path)"
    }
}
