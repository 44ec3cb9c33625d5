import Foundation

/// Where a process keeps its files: the core's holds the log and the keys; a worker's or an API
/// process's holds only its own (one directory may serve them all on one machine).
///
/// The files hold accounts, keys and tokens' revocations: only the owner may read them, whatever
/// the umask the process started with (022 left the log 0644). Opening a data directory sets the
/// process's umask to 077 and the directory's mode to 0700, and takes group and other access
/// away from files an earlier version created.
package struct DataDirectory: Sendable {
    package let url: URL

    package init(_ path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        umask(0o077)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Self.ownerOnly(url)
    }

    /// For a command that only reads (stats, status, events): nothing is made or changed, so one
    /// run where there is no deployment leaves no `./data` behind (issue 45).
    package init(readingFrom path: String) {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    private static func ownerOnly(_ directory: URL) throws {
        let manager = FileManager.default
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        for name in try manager.contentsOfDirectory(atPath: directory.path) {
            let path = directory.appendingPathComponent(name).path
            guard let mode = (try? manager.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber,
                  mode.intValue & 0o077 != 0 else { continue }
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: path, isDirectory: &isDirectory)
            try? manager.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o700 : mode.intValue & 0o700], ofItemAtPath: path)
        }
    }

    package var eventLog: String { url.appendingPathComponent("events.sqlite").path }
    /// The users' keys (`UserKeyStore`): written by the core, read by every process that decodes accounts.
    package var userKeys: String { url.appendingPathComponent("user-keys.sqlite").path }
    /// The people erased here (`ErasureLedger`): written by the core, read by `pantry restore`.
    package var erasures: String { url.appendingPathComponent("erased-users.tsv").path }
    /// The core's state at a position (`CoreSnapshot`): rebuilt from the log when missing or stale.
    package var coreSnapshot: String { url.appendingPathComponent("core.snapshot").path }
    package var writerLock: String { url.appendingPathComponent("events.lock").path }
    /// The projection files, one per worker.
    package var projections: URL { url.appendingPathComponent("projections", isDirectory: true) }
    /// The copies of their projections that the workers on this host leave for the core's log
    /// service to serve to workers on new hosts (`ProjectionSnapshots`).
    package var snapshots: URL { url.appendingPathComponent("snapshots", isDirectory: true) }
    /// Held by the running worker of a projection, so a replay never renames a file over it.
    package func workerLock(_ projection: String) -> String {
        projections.appendingPathComponent("\(projection).lock").path
    }
    /// Held by a replay of a projection (one at a time: they share the rebuild's file).
    package func replayLock(_ projection: String) -> String {
        projections.appendingPathComponent("\(projection).replay.lock").path
    }
}
