import Foundation
import GRDB
import Logging
import PantryFiles
import PantryLog
import PantryKeys

/// What a rebuild did.
package struct ReplayReport: Sendable, Equatable, Codable {
    package var projection: String
    /// Events read and applied (every position from 1 to `checkpoint`).
    package var events: Int64
    package var checkpoint: Int64
    package var checksum: String
    package var seconds: Double

    package var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
}

/// Rebuilds projections from the log into fresh files and swaps them in.
///
/// A rebuild is written to `<name>.sqlite.rebuild` without a single fsync; once complete it is
/// synced and renamed `<name>.sqlite.rebuilt` (`finishRebuild`), so a file by that name is always
/// whole. Then either its running worker adopts it (`ProjectionStore.adopt`, asked with the `swap`
/// query), or, with the worker stopped, `swapIn` renames it over `<name>.sqlite` (atomic on POSIX),
/// after deleting the live file's `-wal` and `-shm`: a stale WAL left beside the new file would be
/// replayed into it. Never rename over the file of a running worker: its open connections keep
/// writing to the old, unlinked file and its WAL.
package enum Replayer {
    package static let defaultBatchSize = 100_000

    /// Rebuilds `projection` from position 0 (up to `last`) into `<directory>/<name>.sqlite.rebuild`, reporting
    /// `(applied, head)` after every batch, then (if `swap`) moves it over `<directory>/<name>.sqlite`.
    /// A leftover rebuild file from an interrupted run is discarded first.
    @discardableResult
    package static func rebuild(_ projection: any Projection, directory: URL, from log: any EventLogReader, keys: UserKeyStore?,
                               batchSize: Int = defaultBatchSize, through last: Int64 = .max, swap: Bool = true,
                               progress: ((_ applied: Int64, _ head: Int64) -> Void)? = nil) throws -> ReplayReport {
        let live = ProjectionStore.fileURL(name: projection.name, directory: directory)
        let fresh = URL(fileURLWithPath: live.path + ".rebuild")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try removeDatabaseFiles(at: fresh)
        let started = DispatchTime.now()
        let store = try ProjectionStore(projection: projection, path: fresh.path, keys: keys, bulkLoad: true)
        let report: ReplayReport
        do {
            // Secondary indexes are built once at the end rather than maintained through millions
            // of updates, except those the fold looks rows up by; the file is a throwaway until it
            // is swapped in, so nothing is fsynced.
            let indexes = try store.write { db in
                let indexes = try Row.fetchAll(db, sql: """
                    SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
                    """).map { (name: $0["name"] as String, sql: $0["sql"] as String) }
                    .filter { !projection.indexesTheFoldReads.contains($0.name) }
                for index in indexes { try db.execute(sql: "DROP INDEX \(index.name)") }
                return indexes
            }
            let fold = projection.rebuildFold()
            let applied = try store.catchUp(from: log, batchSize: batchSize, through: last, into: fold, progress: progress)
            if let fold { try store.write { try fold.finish($0) } }
            try store.write { db in for index in indexes { try db.execute(sql: index.sql) } }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            report = ReplayReport(projection: projection.name, events: applied, checkpoint: try store.checkpoint,
                                  checksum: try store.checksum(), seconds: seconds)
            // The main file must hold everything before it moves: its WAL is not moved with it.
            try store.checkpointWAL()
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        if swap { try swapIn(fresh, over: live) }
        return report
    }

    /// `<name>.sqlite.rebuilt` beside `live`: a finished rebuild waiting to be swapped in.
    package static func rebuiltURL(of live: URL) -> URL {
        URL(fileURLWithPath: live.path + ".rebuilt")
    }

    /// Syncs the rebuild of `live` that `rebuild(swap: false)` left and renames it to
    /// `rebuiltURL(of: live)`, replacing any older one. Returns that URL.
    package static func finishRebuild(of live: URL) throws -> URL {
        let rebuilt = rebuiltURL(of: live)
        let fresh = URL(fileURLWithPath: live.path + ".rebuild")
        try removeDatabaseFiles(at: rebuilt)
        try settleWAL(of: fresh)
        try DurableFile.install(fresh.path, as: rebuilt.path)
        return rebuilt
    }

    /// Leaves `file` whole on its own: a WAL beside it that still holds frames (a worker killed
    /// while it caught a rebuild up) is copied in first, or it would be lost; then the WAL and the
    /// shared memory are removed, as SQLite leaves them when a connection elsewhere outlived the pool.
    private static func settleWAL(of file: URL) throws {
        let wal = URL(fileURLWithPath: file.path + "-wal")
        if let size = try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? NSNumber, size.intValue > 0 {
            let queue = try DatabaseQueue(path: file.path)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
        try removeFile(wal)
        try removeFile(URL(fileURLWithPath: file.path + "-shm"))
    }

    /// Moves a rebuilt file over the live one, synced (see the type's notes on the live worker).
    package static func swapIn(_ fresh: URL, over live: URL) throws {
        try settleWAL(of: fresh)
        try removeFile(URL(fileURLWithPath: live.path + "-wal"))
        try removeFile(URL(fileURLWithPath: live.path + "-shm"))
        try DurableFile.install(fresh.path, as: live.path)
    }

    /// The checksum and checkpoint of a projection file, read without changing it (for `--verify`:
    /// compare a live file with a rebuild at the same checkpoint).
    package static func checksum(of projection: any Projection, at path: String) throws -> (checkpoint: Int64, checksum: String) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in (try ProjectionStore.checkpoint(db), try projection.checksum(db)) }
    }

    /// The checksum of `<directory>/<name>.sqlite`.
    package static func checksum(name: String, directory: URL) throws -> (checkpoint: Int64, checksum: String) {
        try checksum(of: ProjectionCatalog.named(name), at: ProjectionStore.fileURL(name: name, directory: directory).path)
    }

    /// The checkpoint of `<directory>/<name>.sqlite`, cheaply (no checksum), for status reports.
    package static func checkpoint(name: String, directory: URL) throws -> Int64 {
        let path = ProjectionStore.fileURL(name: name, directory: directory).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in try ProjectionStore.checkpoint(db) }
    }

    /// Removes a rebuild made only to be compared (`--verify`), with its WAL and shared memory.
    package static func discardRebuild(of live: URL) throws {
        try removeDatabaseFiles(at: URL(fileURLWithPath: live.path + ".rebuild"))
    }

    static func removeDatabaseFiles(at url: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try removeFile(URL(fileURLWithPath: url.path + suffix)) }
    }

    private static func removeFile(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}
