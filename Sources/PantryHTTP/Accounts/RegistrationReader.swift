import NIOPosix
import PantryDomain
import PantryLog
import Synchronization

/// Reads the events that hold accounts (registrations, password changes) back from the log by
/// position, when an account is first needed: the API keeps only where each one is
/// (`AccountDirectory`), since opening a million sealed registrations at every start took 94 s and
/// 964 MiB (docs/benchmarks/scale.md). The log file with the key vault on the core's host, the
/// core's log service elsewhere (which opens the sealed fields itself), as the feed reads it.
final class RegistrationReader: Sendable {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "the log cannot be read for accounts yet" }
    }

    /// Gives the log, or nil while it does not exist yet; kept once open.
    private let openLog: @Sendable () throws -> (any EventLogReader)?
    private let keys: (any PersonalDataVault & Sendable)?
    /// One read at a time on the one reader (a log service's socket is not shared).
    private let log = Mutex<(any EventLogReader)?>(nil)

    init(openLog: @escaping @Sendable () throws -> (any EventLogReader)?, keys: (any PersonalDataVault & Sendable)?) {
        self.openLog = openLog
        self.keys = keys
    }

    /// The events at `positions`, decoded (a destroyed key leaves an erased registration), in log
    /// order; on NIO's pool for blocking work. Throws when the log does not answer, or an event
    /// there is not one that holds an account.
    func events(at positions: [Int64]) async throws -> [(event: Event, position: Int64)] {
        guard !positions.isEmpty else { return [] }
        return try await NIOThreadPool.singleton.runIfActive { [self] in
            try log.withLock { log in
                if log == nil { log = try openLog() }
                guard let reader = log else { throw Unavailable() }
                let recorded = try reader.read(positions: positions.sorted())
                return try recorded.map { one in
                    guard one.type == EventType.userRegistered.rawValue || one.type == EventType.passwordChanged.rawValue else {
                        throw Unavailable()
                    }
                    return (try EventCoding.decode(type: one.type, schemaVersion: one.schemaVersion, data: one.data, vault: keys),
                            one.position)
                }
            }
        }
    }
}
