import PantryBus
import PantryCore
import PantryWire

extension BusEndpoints {
    /// The deployment's endpoints: `ipc://` sockets in the data directory unless the environment
    /// names others (`PANTRY_CORE_COMMANDS`, `PANTRY_CORE_EVENTS`, `PANTRY_CORE_LOG` or
    /// `logService`, `PANTRY_FETCH_ENDPOINT`, `PANTRY_<WORKER>_QUERIES`, `PANTRY_FEED_HIGH_WATER_MARK`).
    init(_ directory: DataDirectory, environment: [String: String], logService: String? = nil) throws {
        self.init(dataDirectory: directory.url)
        func named(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        commands = named("PANTRY_CORE_COMMANDS") ?? commands
        events = named("PANTRY_CORE_EVENTS") ?? events
        log = logService ?? named("PANTRY_CORE_LOG") ?? log
        fetch = named("PANTRY_FETCH_ENDPOINT") ?? fetch
        for worker in WorkerName.allCases {
            if let endpoints = named("PANTRY_\(worker.rawValue.uppercased())_QUERIES") { queries[worker] = endpoints }
        }
        if let text = named("PANTRY_FEED_HIGH_WATER_MARK") {
            guard let messages = Int(text), messages > 0 else {
                throw ConfigurationError("PANTRY_FEED_HIGH_WATER_MARK=\(text) is not a positive number of messages")
            }
            feedHighWaterMark = messages
        }
    }
}

/// A setting the process cannot run with; said before anything starts.
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
