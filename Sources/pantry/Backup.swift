import ArgumentParser
import Foundation
import GRDB
import Logging
import PantryCore
import PantryDomain
import PantryKeys
import PantryEventStore
import PantryProjections

/// `pantry backup DEST`: a consistent copy of a running deployment, taken with SQLite's online
/// backup (a read snapshot per file: the processes keep writing meanwhile).
///
/// The order makes the copies agree with each other: the projections first, so none is ahead
/// of the log copied after them (after a restore each worker catches up from its checkpoint);
/// then the log; then the users' keys, made before the events that need them, so every sealed
/// event in the copied log finds its key (a key destroyed meanwhile stays destroyed); then the
/// erasure ledger.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a deployment's data (log, projections, fetch cache, keys) while it runs.")

    @OptionGroup var options: DataOptions

    @Argument(help: "A directory that does not exist yet, or is empty.")
    var destination: String

    func run() throws {
        let options = try self.options.configuration().deployment()
        // Read only: a backup of a directory that is not there makes none.
        let source = DataDirectory(readingFrom: options.data)
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
        // After the keys: a deletion lists its user here before destroying the key, so a key the
        // copy lacks belongs to someone this copy of the ledger names, and restore keeps them erased.
        if FileManager.default.fileExists(atPath: source.erasures) {
            try FileManager.default.copyItem(atPath: source.erasures, toPath: copy.erasures)
            copied.append(ErasureLedger.fileName)
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
///
/// Erased people stay erased: the erasure ledgers (the target directory's, the backup's and any
/// named with `--erasures`) are merged into the target's, and each person they list whom the backup
/// still holds (it was taken before the deletion) is deleted again, through the core's own
/// `DeleteUser`: their key is destroyed, log-in fails, and the projections, caught up here, forget
/// their points, tips and groceries.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a backup (pantry backup) back into a data directory that has no log yet.")

    @OptionGroup var options: DataOptions

    @Option(name: .customLong("erasures"),
            help: "Another erasure ledger (\(ErasureLedger.fileName), from the lost data directory or a newer backup) whose people stay erased too; repeatable. Required unless --no-erasures.")
    var erasures: [String] = []

    @Flag(name: .customLong("no-erasures"),
          help: "Restore with the backup's own ledger only: whoever was deleted after the backup was taken comes back.")
    var noErasures = false

    @Argument(help: "The backup's directory.")
    var source: String

    /// A backup's own ledger stops at the backup: restored without the newer one, everyone deleted
    /// since could log in again, and restore said only "0 erased people kept erased" (issue 45).
    /// So the operator names the newer ledger or says there is none; a usage error, before anything.
    func validate() throws {
        if erasures.isEmpty, !noErasures {
            throw ValidationError("""
                name the newest erasure ledger with --erasures LEDGER (the lost data directory's \(ErasureLedger.fileName), \
                or a newer backup's), so that people deleted after this backup stay deleted; or say --no-erasures \
                to restore with the backup's own ledger only
                """)
        }
        if !erasures.isEmpty, noErasures {
            throw ValidationError("--erasures and --no-erasures exclude each other")
        }
    }

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
        // Every ledger is read before anything is copied: a missing or malformed one changes nothing.
        var erased = try [target.erasures, backup.appendingPathComponent(ErasureLedger.fileName).path]
            .flatMap { try ErasureLedger(path: $0).read() }
        var named: [String] = []
        for path in erasures {
            guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("there is no erasure ledger at \(path)") }
            let listed = try ErasureLedger(path: path).read()
            erased += listed
            // Its date says whether it is the newest: one older than the last deletion leaves that person back.
            let written = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            named.append("restore: erasure ledger \(path) of \(written?.formatted(.iso8601) ?? "an unknown date") keeps \(Set(listed.map(\.userId)).count) people erased")
        }
        if noErasures { named.append("restore: --no-erasures: anyone deleted after this backup was taken is back") }

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
        let (kept, deletedAgain) = try keepErased(erased, in: target)
        let head = try SQLiteEventStore(path: target.eventLog, readOnly: true).headPosition()
        print("restore: \(restored) files into \(target.url.path), the log at position \(head)")
        for line in named { print(line) }
        print("restore: \(kept) erased people kept erased (\(deletedAgain) deleted again: the backup was taken before their deletion)")
    }

    /// Lists `erased` in the target's ledger and deletes again those the restored log still holds;
    /// returns how many of the ledger's people the backup knew, and how many were deleted again.
    private func keepErased(_ erased: [ErasureLedger.Erasure], in target: DataDirectory) throws -> (Int, Int) {
        guard !erased.isEmpty else { return (0, 0) }
        let ledger = ErasureLedger(path: target.erasures)
        try ledger.record(erased)
        let lock = try WriterLock(path: target.writerLock)
        defer { withExtendedLifetime(lock) {} }
        var logger = Logger(label: "pantry.restore")
        logger.logLevel = .warning
        let keys = try UserKeyStore(path: target.userKeys, readOnly: false)
        // No command-id filter: these few deletions are looked up in the log.
        let processor = try CommandProcessor(store: SQLiteEventStore(path: target.eventLog), keys: keys, erasures: ledger,
                                             commandIdFilterBytes: 0, logger: logger)
        let ids = Set(erased.map(\.userId))
        let known = ids.filter { processor.state.users[$0] != nil || processor.state.deletedUsers.contains($0) }
        let back = known.filter { processor.state.users[$0] != nil }.sorted()
        let outcomes = processor.process(back.map {
            CommandEnvelope(commandId: "restore-erasure-\($0)", command: .deleteUser(DeleteUser(userId: $0)))
        })
        if let refused = outcomes.first(where: { $0.status != .accepted }) {
            throw ValidationError("could not delete \(refused.commandId ?? "") again: \(refused.message ?? "")")
        }
        // A key of someone the log never held (or whose deletion it holds) must not be there either.
        try keys.destroy(ids)
        if !back.isEmpty { try forgetInProjections(target, keys: keys) }
        return (known.count, back.count)
    }

    /// The copied projections still hold what those deleted again wrote: they apply the log's tail
    /// (the deletions) here, and their WAL is emptied, rather than keep it until a worker starts.
    private func forgetInProjections(_ target: DataDirectory, keys: UserKeyStore) throws {
        let log = try SQLiteEventStore(path: target.eventLog, readOnly: true)
        for name in ProjectionCatalog.names
        where FileManager.default.fileExists(atPath: ProjectionStore.fileURL(name: name, directory: target.projections).path) {
            let store = try ProjectionStore.open(name: name, directory: target.projections, keys: keys)
            try store.catchUp(from: log)
            try store.checkpointWAL()
            try store.close()
        }
    }
}
