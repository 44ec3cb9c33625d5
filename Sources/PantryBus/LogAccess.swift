import PantryDomain
import PantryLog

/// How a process that follows the log reads it. The executable chooses; the libraries only read.
package enum LogAccess: Sendable {
    /// The log itself (the SQLite file on the core's host, or PostgreSQL), so gaps are repaired even
    /// while the core restarts. `open` gives nil while the core has not made the log yet; `vault`
    /// opens the sealed personal fields.
    case direct(open: @Sendable () throws -> (any EventLogReader)?, vault: any PersonalDataVault & Sendable)
    /// The core's log service (`BusEndpoints.log`), which opens sealed fields before sending them,
    /// so no key file is needed on this host.
    case service
}
