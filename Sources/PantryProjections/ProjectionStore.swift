import Foundation
import GRDB
import Logging
import PantryDomain
import PantryLog
import PantryKeys
import PantryEventStore

/// One projection in its own SQLite file, with the position of the last applied event.
///
/// The file is in WAL mode (readers in this and other processes never block the worker) with
/// `synchronous=NORMAL`: a power loss may lose the last few committed transactions, but never
/// corrupts the file, and what is lost is lost together with its checkpoint, so the worker simply
/// reads those events from the log again. The log (`synchronous=FULL`) is the truth; this file can
/// always be rebuilt from it, so paying an fsync per batch here would buy nothing.
///
/// Exactly-once in effect: a batch and the checkpoint move in one transaction, and every event at or
/// below the checkpoint is skipped, so duplicates, overlaps and redelivery after a crash are harmless.
///
/// Only one process may write a projection file (its worker); any number may read it.
package final class ProjectionStore: Sendable {
    package let projection: any Projection
    /// The projection's types as the log spells them, matched against every event it reads.
    package let eventTypeNames: Set<String>
    package let path: String
    private let pool: DatabasePool
    private let keys: (any PersonalDataVault & Sendable)?
    private let logger: Logger

    /// Opens (creating if needed) the projection file at `path`. `bulkLoad` is for a file that is
    /// rebuilt from scratch and thrown away if anything fails: it skips fsync entirely.
    /// `checkpointsInBackground` leaves WAL checkpoints to a `BackgroundCheckpointer`.
    /// `keys` opens the sealed personal fields of the projection's events (nil for projections
    /// that read none).
    package convenience init(projection: any Projection, path: String, keys: UserKeyStore?, bulkLoad: Bool = false,
                             checkpointsInBackground: Bool = false, logger: Logger? = nil) throws {
        // A rebuild opens every registration: asking the key file once per user cost 150 µs each,
        // and held the leaderboard's replay to 0.20 of the log's read speed with 100,000 users.
        try self.init(projection: projection, path: path, vault: try bulkLoad ? keys?.preloaded() : keys, bulkLoad: bulkLoad,
                      checkpointsInBackground: checkpointsInBackground, finishedRebuild: false, logger: logger)
    }

    /// `finishedRebuild`: the file must already hold this projection's tables at its layout (it
    /// is refused otherwise, rather than emptied and folded again from position 0).
    private init(projection: any Projection, path: String, vault: (any PersonalDataVault & Sendable)?, bulkLoad: Bool,
                 checkpointsInBackground: Bool, finishedRebuild: Bool, logger: Logger?) throws {
        self.projection = projection
        eventTypeNames = projection.eventTypes.names
        self.path = path
        self.keys = vault
        let logger = logger ?? Logger(label: "pantry.projection.\(projection.name)")
        self.logger = logger
        var config = Configuration()
        config.label = projection.name
        config.busyMode = .retrying(for: 10)
        config.prepareDatabase { db in
            if checkpointsInBackground { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            try db.execute(sql: "PRAGMA journal_size_limit = \(BackgroundCheckpointer.journalSizeLimit)")
            // A deleted user's rows are overwritten, not left readable in free pages: Debian's
            // SQLite is built that way, others need asking.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        var pool = try DatabasePool(path: path, configuration: config)
        let layout = try pool.read { db in
            try db.tableExists("checkpoint") ? max(1, try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0) : nil
        }
        if finishedRebuild, layout != projection.layoutVersion {
            try pool.close()
            throw UnusableRebuild(path: path, reason: layout.map { "its layout is \($0), this build's is \(projection.layoutVersion)" }
                                  ?? "it holds no \(projection.name) projection")
        }
        if let layout, layout != projection.layoutVersion {
            logger.notice("the projection's tables changed; rebuilding it from the log",
                          metadata: ["file": "\(path)", "layout": "\(layout)", "now": "\(projection.layoutVersion)"])
            try pool.close()
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.removeItem(atPath: path + suffix)
            }
            pool = try DatabasePool(path: path, configuration: config)
        }
        // On the writer, once the pool is open: GRDB sets NORMAL there after `prepareDatabase`.
        if bulkLoad { try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = OFF") } }
        self.pool = pool
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: \(projection.name)") { db in
            try db.execute(sql: "PRAGMA user_version = \(projection.layoutVersion)")
            try db.execute(sql: """
                CREATE TABLE checkpoint (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    position INTEGER NOT NULL
                );
                INSERT INTO checkpoint (id, position) VALUES (1, 0);
                """)
            try projection.migrate(db)
        }
        try migrator.migrate(pool)
    }

    package struct UnusableRebuild: Error, CustomStringConvertible {
        package var path: String
        package var reason: String
        package var description: String { "\(path) cannot be swapped in: \(reason)" }
    }

    /// Replaces this file's state with the finished rebuild at `rebuilt` (`Replayer.finishRebuild`),
    /// first brought from the log up to `through` (this file's checkpoint) so that the checkpoint
    /// never moves back. The copy is one write transaction on this file (SQLite's backup API through
    /// its writer), not a rename: a crash at any moment leaves the old state or the new one, both
    /// whole, and every connection to the file (readers here and in other processes, the
    /// background checkpointer) stays valid; a renamed file would leave them on the old inode, and
    /// the last of them to close would delete the new file's WAL by its name. The rebuild's files
    /// are deleted once copied. Returns the new checkpoint.
    package func adopt(rebuilt: URL, catchingUpFrom log: any EventLogReader, through: Int64) throws -> Int64 {
        let fresh = try ProjectionStore(projection: projection, path: rebuilt.path, vault: keys, bulkLoad: false,
                                        checkpointsInBackground: false, finishedRebuild: true, logger: logger)
        do {
            try fresh.catchUp(from: log, through: through)
            // Whole in its main file: if this process dies before the copy commits, a replay
            // that finds the worker stopped renames it over the file as it is.
            try fresh.checkpointWAL()
            try fresh.pool.backup(to: pool)
            try fresh.close()
        } catch {
            try? fresh.close()
            throw error
        }
        // Swapped in whatever follows: one left behind is consumed by the next replay, or
        // adopted again to the same effect.
        try? Replayer.removeDatabaseFiles(at: rebuilt)
        return try checkpoint
    }

    /// Opens `<directory>/<name>.sqlite` for one of `ProjectionCatalog.all`.
    package static func open(name: String, directory: URL, keys: UserKeyStore?, checkpointsInBackground: Bool = false,
                            logger: Logger? = nil) throws -> ProjectionStore {
        let projection = try ProjectionCatalog.named(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try ProjectionStore(projection: projection, path: fileURL(name: name, directory: directory).path,
                                   keys: keys, checkpointsInBackground: checkpointsInBackground, logger: logger)
    }

    /// `<directory>/<name>.sqlite`.
    package static func fileURL(name: String, directory: URL) -> URL {
        directory.appendingPathComponent("\(name).sqlite")
    }

    /// The position of the last applied event (0 when none was).
    package var checkpoint: Int64 {
        get throws { try pool.read { db in try Self.checkpoint(db) } }
    }

    static func checkpoint(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT position FROM checkpoint WHERE id = 1")) ?? 0
    }

    /// Applies `events` (in position order; duplicates allowed) and advances the checkpoint, all in
    /// one transaction. Events at or below the checkpoint are skipped. If the unapplied events do not
    /// continue the checkpoint without a hole, nothing is applied and `.gap` is thrown: read the log
    /// from `checkpoint` (see `catchUp`). Returns how many events were applied.
    @discardableResult
    package func apply(_ events: [RecordedEvent]) throws -> Int {
        try apply(decoded: events.map { ($0, nil) })
    }

    /// `apply`, for events whose payload the caller may already have decoded (nil: decode it here
    /// if this projection reads its type).
    @discardableResult
    package func apply(decoded events: [(recorded: RecordedEvent, event: Event?)]) throws -> Int {
        guard !events.isEmpty else { return 0 }
        return try pool.write { db in
            let start = try Self.checkpoint(db)
            var position = start
            var unseen: [(recorded: RecordedEvent, event: Event?)] = []
            // Validate first so that a gap leaves the file untouched.
            for event in events where event.recorded.position > position {
                guard event.recorded.position == position + 1 else {
                    throw ProjectionError.gap(expected: position + 1, got: event.recorded.position)
                }
                position = event.recorded.position
                unseen.append(event)
            }
            guard position > start else { return 0 }
            try fold(unseen, db: db)
            try db.execute(sql: "UPDATE checkpoint SET position = ? WHERE id = 1", arguments: [position])
            return Int(position - start)
        }
    }

    /// Applies what `EventStore.read(after: checkpoint, through: last, types: projection.eventTypes)`
    /// returned and moves the checkpoint to `last`: the positions in between hold events of types
    /// this projection ignores, so they never have to be read. Returns how many positions that covered.
    @discardableResult
    package func apply(_ events: [RecordedEvent], after first: Int64, through last: Int64) throws -> Int64 {
        try apply(decoded: events.map { ($0, nil) }, after: first, through: last)
    }

    /// `apply(_:after:through:)` for events whose payload the caller may already have decoded, and
    /// which may include events of ignored types (they are skipped).
    @discardableResult
    package func apply(decoded events: [(recorded: RecordedEvent, event: Event?)], after first: Int64, through last: Int64,
                       into rebuild: (any ProjectionFold)? = nil) throws -> Int64 {
        try apply(LogRange(events: events, users: nil), after: first, through: last, into: rebuild)
    }

    /// One range of the log as catch-up reads it: whole events, and for a `UserOnlyFold` the
    /// users of its type's events (nil when those came whole).
    private struct LogRange: Sendable {
        var events: [(recorded: RecordedEvent, event: Event?)]
        var users: [EventUser]?
    }

    private func apply(_ range: LogRange, after first: Int64, through last: Int64, into rebuild: (any ProjectionFold)?) throws -> Int64 {
        try pool.write { db in
            let checkpoint = try Self.checkpoint(db)
            guard checkpoint == first else { throw ProjectionError.gap(expected: checkpoint + 1, got: first + 1) }
            // Each list in order within the range; a position holds one type, so the two never share one.
            func checkOrder(_ positions: some Sequence<Int64>) throws {
                var position = first
                for next in positions {
                    guard next > position, next <= last else { throw ProjectionError.gap(expected: position + 1, got: next) }
                    position = next
                }
            }
            try checkOrder(range.events.lazy.map(\.recorded.position))
            try checkOrder((range.users ?? []).lazy.map(\.position))
            try fold(range.events, users: range.users, db: db, into: rebuild)
            try db.execute(sql: "UPDATE checkpoint SET position = ? WHERE id = 1", arguments: [last])
            return last - first
        }
    }

    /// Decodes the events of this projection's types (unless already decoded) and hands them to
    /// the projection (or the rebuild's fold) as one batch. Other types are not even decoded.
    private func fold(_ events: [(recorded: RecordedEvent, event: Event?)], users: [EventUser]? = nil, db: Database,
                      into rebuild: (any ProjectionFold)? = nil) throws {
        let types = eventTypeNames
        var batch: [(event: Event, recorded: RecordedEvent)] = []
        batch.reserveCapacity(events.count)
        for (recorded, event) in events where types.contains(recorded.type) {
            batch.append((try event ?? decode(recorded), recorded))
        }
        if let users {
            // Only `catchUp` reads users, and only for a `UserOnlyFold`.
            guard let narrow = rebuild as? any UserOnlyFold else { preconditionFailure("users read for a fold that takes whole events") }
            // Refused as decoding would refuse them (a version this build does not know), asked
            // once per run of equal versions rather than per point.
            let type = narrow.userOnlyType.rawValue
            var accepted: Int?
            for user in users where user.schemaVersion != accepted {
                do { _ = try EventCoding.checkVersion(type: type, user.schemaVersion) } catch {
                    throw ProjectionError.undecodable(position: user.position, reason: "\(error)")
                }
                accepted = user.schemaVersion
            }
            try narrow.apply(batch: batch, users: users, db: db)
        } else if let rebuild {
            try rebuild.apply(batch: batch, db: db)
        } else {
            try projection.apply(batch: batch, db: db)
        }
    }

    private func decode(_ recorded: RecordedEvent) throws(ProjectionError) -> Event {
        do {
            return try EventCoding.decode(type: recorded.type, schemaVersion: recorded.schemaVersion, data: recorded.data,
                                          vault: keys)
        } catch {
            throw .undecodable(position: recorded.position, reason: "\(error)")
        }
    }

    /// Reads the log after the checkpoint up to its head (or `last`), `batchSize` positions at a
    /// time, and applies it; the next batch is read on another thread while one is applied. Only
    /// events of this projection's types are read (see `apply(_:after:through:)`). Use it at start,
    /// after a `.gap`, and to replay. Keeps going while the log grows, so it returns only when the
    /// head stopped moving. `progress` gets (checkpoint, head) after every batch. Returns how many
    /// positions it applied. A rebuild passes its projection's `rebuildFold` and finishes it itself.
    @discardableResult
    package func catchUp(from log: any EventLogReader, batchSize: Int = 1_000, through last: Int64 = .max,
                        into rebuild: (any ProjectionFold)? = nil,
                        progress: ((_ applied: Int64, _ head: Int64) -> Void)? = nil) throws -> Int64 {
        precondition(batchSize > 0, "batchSize must be positive")
        var position = try checkpoint
        var head = max(min(try log.headPosition(), last), position)
        var applied: Int64 = 0
        progress?(position, head)
        let read = rangeReader(log, into: rebuild)
        var upcoming: (range: ClosedRange<Int64>, read: ReadAhead<LogRange>)?
        while true {
            while position < head {
                let end = min(head, position + Int64(batchSize))
                let range = try upcoming.flatMap { $0.range == position...end ? try $0.read.value() : nil } ?? read(position, end)
                let nextEnd = min(head, end + Int64(batchSize))
                upcoming = nextEnd > end ? (end...nextEnd, ReadAhead { try read(end, nextEnd) }) : nil
                applied += try apply(range, after: position, through: end, into: rebuild)
                position = end
                progress?(position, head)
            }
            let newHead = min(try log.headPosition(), last)
            guard newHead > head else { break }
            head = newHead
        }
        if applied > 0 { logger.debug("caught up", metadata: ["applied": "\(applied)", "checkpoint": "\(position)"]) }
        return applied
    }

    /// How `catchUp` reads the events of this projection's types after one position through
    /// another: a `UserOnlyFold` on a log that reads users alone gets its type's events that way.
    private func rangeReader(_ log: any EventLogReader, into rebuild: (any ProjectionFold)?)
        -> @Sendable (_ after: Int64, _ last: Int64) throws -> LogRange {
        let types = eventTypeNames
        if let narrow = rebuild as? any UserOnlyFold, let users = log as? any EventUserReader,
           case let userOnly = narrow.userOnlyType.rawValue, types.contains(userOnly) {
            let others = types.subtracting([userOnly])
            return { after, last in
                LogRange(events: try users.read(after: after, through: last, types: others).map { ($0, nil) },
                         users: try users.readUsers(after: after, through: last, type: userOnly))
            }
        }
        return { after, last in LogRange(events: try log.read(after: after, through: last, types: types).map { ($0, nil) }, users: nil) }
    }

    /// The projection's checksum (see `Projection.checksum`).
    package func checksum() throws -> String {
        try pool.read { db in try projection.checksum(db) }
    }

    /// Runs `body` in a write transaction (schema work during a rebuild).
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.write(body)
    }

    /// Runs a query (one of the projection's static query functions) on a consistent snapshot.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.read(body)
    }

    /// Copies everything in the WAL into the main file and empties the WAL, so that the main file
    /// alone holds the whole state (done before a rebuilt file is moved).
    package func checkpointWAL() throws {
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// Closes the file. Further use of this store throws.
    package func close() throws {
        try pool.close()
    }
}

