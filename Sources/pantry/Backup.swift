import ArgumentParser
import Foundation
import GRDB
import PantryCore
import PantryEventStore
import PantryProjections

/// `pantry backup DEST`: a consistent copy of a running deployment, taken with SQLite's online
/// backup (a read snapshot per file: the processes keep writing meanwhile).
///
/// The order makes the copies agree with each other: the projections first, so none is ahead
/// of the log copied after them (after a restore each worker catches up from its checkpoint);
/// then the log; then the users' keys, made before the events that need them, so every sealed
/// event in the copied log finds its key (a key destroyed meanwhile stays destroyed).
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a deployment's data (log, projections, fetch cache, keys) while it runs.")

    @OptionGroup var options: DataOptions

    @Argument(help: "A directory that does not exist yet, or is empty.")
    var destination: String

    func run() throws {
        let options = try self.options.configuration().deployment()
        let source = try DataDirectory(options.data)
        if case .postgres(let address) = try options.logLocation(source) {
            throw ValidationError("the log is in PostgreSQL (\(address)): back it up with PostgreSQL's own tools (pg_dump, a replica); this command copies an SQLite log")
        }
        guard FileManager.default.fileExists(atPath: source.eventLog) else {
            throw ValidationError("there is no event log at \(source.eventLog)")
        }
        let target = URL(fileURLWithPath: destination, isDirectory: true).standardizedFileURL
        if FileManager.default.fileExists(atPath: target.path),
           !(try FileManager.default.contentsOfDirectory(atPath: target.path)).isEmpty {
            throw ValidationError("\(target.path) is not empty: a backup goes into a new directory")
        }
        let copy = try DataDirectory(target.path)
        try FileManager.default.createDirectory(at: copy.projections, withIntermediateDirectories: true)
        let started = Date()
        var copied: [String] = []
        for name in ProjectionCatalog.names {
            let file = ProjectionStore.fileURL(name: name, directory: source.projections)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            try Self.copyDatabase(file.path, to: ProjectionStore.fileURL(name: name, directory: copy.projections).path)
            copied.append("projections/\(name).sqlite")
        }
        for name in ["fetch.sqlite"] where FileManager.default.fileExists(atPath: source.url.appendingPathComponent(name).path) {
            try Self.copyDatabase(source.url.appendingPathComponent(name).path, to: copy.url.appendingPathComponent(name).path)
            copied.append(name)
        }
        try Self.copyDatabase(source.eventLog, to: copy.eventLog)
        copied.append("events.sqlite")
        if FileManager.default.fileExists(atPath: source.userKeys) {
            try Self.copyDatabase(source.userKeys, to: copy.userKeys)
            copied.append("user-keys.sqlite")
        }
        let tokenKey = source.url.appendingPathComponent("api-token.key")
        if FileManager.default.fileExists(atPath: tokenKey.path) {
            try FileManager.default.copyItem(at: tokenKey, to: copy.url.appendingPathComponent("api-token.key"))
            copied.append("api-token.key")
        }
        let head = try SQLiteEventStore(path: copy.eventLog, readOnly: true).headPosition()
        print("backup: \(copied.count) files to \(target.path), the log at position \(head), in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        for file in copied { print("  \(file)") }
    }

    /// SQLite's online backup from a live file: one read snapshot, whatever its writer does meanwhile.
    static func copyDatabase(_ source: String, to destination: String) throws {
        var readOnly = Configuration()
        readOnly.readonly = true
        readOnly.busyMode = .timeout(10)
        let from = try DatabaseQueue(path: source, configuration: readOnly)
        let to = try DatabaseQueue(path: destination)
        try from.backup(to: to)
        try to.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        try from.close()
        try to.close()
    }
}

/// `pantry restore SRC`: a backup brought back into a data directory with no log yet; the
/// workers catch up from their copies' checkpoints when started.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a backup (pantry backup) back into a data directory that has no log yet.")

    @OptionGroup var options: DataOptions

    @Argument(help: "The backup's directory.")
    var source: String

    func run() throws {
        let options = try self.options.configuration().deployment()
        let target = try DataDirectory(options.data)
        guard !FileManager.default.fileExists(atPath: target.eventLog) else {
            throw ValidationError("\(target.eventLog) exists: restore into a data directory without a log")
        }
        let backup = URL(fileURLWithPath: source, isDirectory: true).standardizedFileURL
        guard FileManager.default.fileExists(atPath: backup.appendingPathComponent("events.sqlite").path) else {
            throw ValidationError("\(backup.path) holds no events.sqlite: not a backup")
        }
        try FileManager.default.createDirectory(at: target.projections, withIntermediateDirectories: true)
        var restored = 0
        let files = (try FileManager.default.contentsOfDirectory(atPath: backup.path)).map { $0 }
            + ((try? FileManager.default.contentsOfDirectory(atPath: backup.appendingPathComponent("projections").path)) ?? [])
                .map { "projections/\($0)" }
        for name in files.sorted() where name.hasSuffix(".sqlite") || name == "api-token.key" {
            let from = backup.appendingPathComponent(name).path
            let to = target.url.appendingPathComponent(name).path
            if name.hasSuffix(".sqlite") {
                try Backup.copyDatabase(from, to: to)
            } else {
                try FileManager.default.copyItem(atPath: from, toPath: to)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: to)
            }
            restored += 1
        }
        let head = try SQLiteEventStore(path: target.eventLog, readOnly: true).headPosition()
        print("restore: \(restored) files into \(target.url.path), the log at position \(head)")
    }
}
