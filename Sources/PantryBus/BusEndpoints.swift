import Foundation
import PantryWire
import ZeroMQ

/// Where the processes meet. By default `ipc://` sockets in the data directory; the executable
/// sets any of them to `tcp://HOST:PORT` from its configuration (`PANTRY_CORE_COMMANDS`,
/// `PANTRY_CORE_EVENTS`, `PANTRY_CORE_LOG`, `PANTRY_FETCH_ENDPOINT`, `PANTRY_<NAME>_QUERIES`, or flags).
package struct BusEndpoints: Sendable, Equatable {
    package var commands: String
    package var events: String
    /// The log service's range reads (`LogServer`): what a worker or the API reads instead of the log's file.
    package var log: String
    /// Where the fetch worker answers recipe requests.
    package var fetch: String
    /// Where each projection worker answers queries: one endpoint, or several separated by spaces
    /// (one per worker host, asked round-robin).
    package var queries: [WorkerName: String]
    /// Messages the feed buffers per subscriber, on each side, before ZeroMQ drops them and the
    /// subscriber has to read the log (tests lower it to force drops). It bounds what a stuck
    /// subscriber costs the core: at most this many messages (about 0.5 KB each, so about 10 MB),
    /// against 100,000 (50 MB each) before; a live worker that falls this far behind (0.4 s of the
    /// core's peak rate) reads the rest from the log, as after any gap.
    package var feedHighWaterMark = Self.defaultFeedHighWaterMark
    package static let defaultFeedHighWaterMark = 20_000
    /// What `tcp://` endpoints do: CURVE with the keys of `pantry keys` (`NetworkKeys.swift`),
    /// or plain only where the operator said `--insecure-network`. Every context is made with it.
    package var security = ZMQNetworkSecurity.plain

    /// Every endpoint an `ipc://` socket in `dataDirectory`.
    package init(dataDirectory: URL) {
        func socket(_ name: String) -> String { "ipc://\(dataDirectory.appendingPathComponent("\(name).sock").path)" }
        commands = socket("core-commands")
        events = socket("core-events")
        log = socket("core-log")
        fetch = socket("fetch")
        queries = Dictionary(uniqueKeysWithValues: WorkerName.allCases.map { ($0, socket("\($0.rawValue)-queries")) })
    }

    /// Where `worker`'s queries go (a worker binds its own one).
    package func queries(of worker: WorkerName) -> String {
        guard let endpoints = queries[worker] else { preconditionFailure("no worker named \(worker)") }
        return endpoints
    }
}
