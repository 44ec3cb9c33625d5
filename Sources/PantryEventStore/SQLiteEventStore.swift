import Foundation
import GRDB
import GRDBSQLite
import Synchronization
import PantryDomain
import PantryLog

/// The event log in one SQLite file (WAL, `synchronous=FULL`): an append that returned is on disk.
///
/// Positions are the table's integer primary key, assigned as head + 1 inside the write
/// transaction, so they are dense whatever is rolled back. Many processes may read the file at
/// once; only one may append (see `WriterLock`).
package final class SQLiteEventStore: EventStore {
    package let path: String
    private let pool: DatabasePool
    private let readOnly: Bool
    /// The writer's page cache, in KiB. The writer keeps its cache across its own commits, while a
    /// reader connection starts cold after every commit it did not make: so the core's lookups (the
    /// idempotency record, earned points) run on the writer, whose cache then holds the indexes'
    /// upper levels and recent leaves.
    static let writerCacheKiB = 64 * 1024
    /// Last known version per stream, so an append checks its expectation without a query.
    private let streamVersions = Mutex<[String: Int64]>([:])

    /// `checkpointsInBackground` leaves WAL checkpoints to a `BackgroundCheckpointer` (the core).
    package init(path: String, readOnly: Bool = false, checkpointsInBackground: Bool = false) throws {
        self.path = path
        self.readOnly = readOnly
        var config = Configuration()
        config.readonly = readOnly
        config.label = "events"
        config.busyMode = .retrying(for: 10)
        config.prepareDatabase { db in
            if checkpointsInBackground { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            // A WAL that a burst grew past this is cut back when SQLite starts it over.
            if !readOnly { try db.execute(sql: "PRAGMA journal_size_limit = \(BackgroundCheckpointer.journalSizeLimit)") }
        }
        pool = try DatabasePool(path: path, configuration: config)
        if !readOnly {
            // On the writer, once the pool is open: GRDB sets `synchronous = NORMAL` on its writer
            // after `prepareDatabase` runs, and NORMAL syncs the WAL only at checkpoints, so an
            // append that had returned could be lost with the power.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
            }
            try Self.migrator.migrate(pool)
        }
    }

    /// Below this much free space on the log's filesystem a group commit of a large batch no
    /// longer fits (4,096 commands write about 2 MiB of WAL), and SQLite answers SQLITE_FULL.
    package static let minimumFreeBytes: UInt64 = 1 << 20

    package func writeObstacle() -> String? {
        guard !readOnly else { return nil }
        var stats = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory.isEmpty ? "." : directory, &stats) == 0 else { return nil }
        let free = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
        guard free < Self.minimumFreeBytes else { return nil }
        return "the disk holding the log is full (\(free >> 10) KiB free, \(Self.minimumFreeBytes >> 10) KiB needed)"
    }

    /// A pragma's value on the writer's connection, for the tests.
    func writerPragma(_ name: String) throws -> Int {
        try pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA \(name)") ?? -1 }
    }

    /// Runs `lookup` on the writer's connection when this store writes (see `writerCacheKiB`).
    /// The lookups run in one read transaction: a statement outside a transaction takes and drops
    /// SQLite's WAL read lock (`fcntl` on the -shm file) by itself, and the core asks one statement
    /// per command of a batch.
    private func onWarmestConnection<T>(_ lookup: (Database) throws -> T) throws -> T {
        if readOnly { return try pool.read(lookup) }
        return try pool.writeWithoutTransaction { db in
            var result: T?
            // A lookup that throws rolls the transaction back, and the error goes on to the caller.
            try db.inTransaction(.deferred) {
                result = try lookup(db)
                return .commit
            }
            return result!
        }
    }

    /// A reader of a log that another process (the core) creates: nil until that process has
    /// created the file and every table, so a reader started at the same moment never sees a
    /// half-made log.
    package static func openForReading(path: String) throws -> SQLiteEventStore? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let store = try SQLiteEventStore(path: path, readOnly: true)
        return try store.pool.read { try migrator.hasCompletedMigrations($0) } ? store : nil
    }

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: events") { db in
            try db.execute(sql: """
                CREATE TABLE events (
                    position INTEGER PRIMARY KEY,
                    stream_id TEXT NOT NULL,
                    stream_version INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    schema_version INTEGER NOT NULL,
                    data TEXT NOT NULL,
                    command_id TEXT NOT NULL,
                    correlation_id TEXT,
                    causation_id TEXT,
                    user_id TEXT NOT NULL,
                    recorded_at INTEGER NOT NULL,
                    UNIQUE (stream_id, stream_version)
                )
                """)
        }
        migrator.registerMigration("v2: command fingerprints") { db in
            try db.execute(sql: "ALTER TABLE events ADD COLUMN command_fingerprint INTEGER")
        }
        // The idempotency record is looked up here; building it on an existing log of a million
        // events takes about a second, once.
        migrator.registerMigration("v3: events by command") { db in
            try db.execute(sql: "CREATE INDEX events_by_command ON events (command_id)")
        }
        // The one-point rule's record, asked of the log: every PointEarned by user, recipe and
        // ingredient. Built once on an existing log: 0.94 s for one of 1,000,000 events (632,452 points).
        migrator.registerMigration("v4: points by user, recipe and ingredient") { db in
            try db.execute(sql: """
                CREATE INDEX events_points ON events
                (user_id, json_extract(data, '$.recipeId'), json_extract(data, '$.ingredient'))
                WHERE type = '\(EventType.pointEarned.rawValue)'
                """)
        }
        return migrator
    }

    package func append(_ appends: [StreamAppend]) throws -> [ClosedRange<Int64>] {
        guard !appends.isEmpty else { return [] }
        let written: (ranges: [ClosedRange<Int64>], versions: [String: Int64])
        do {
            written = try pool.write { db in try insert(appends, db) }
        } catch {
            // Whatever the cache learnt may be wrong now: the stored versions are asked again.
            streamVersions.withLock { $0.removeAll() }
            throw error
        }
        // Only a transaction that committed may teach the cache. SQLite's commit hook (GRDB's
        // `afterNextTransaction`) runs before the commit is written, so a COMMIT that then failed
        // (a full disk) left the cache a version ahead of the log, and every later append to
        // those streams failed until a restart.
        streamVersions.withLock { $0.merge(written.versions) { _, new in new } }
        return written.ranges
    }

    private func insert(_ appends: [StreamAppend], _ db: Database) throws -> (ranges: [ClosedRange<Int64>], versions: [String: Int64]) {
        var head = try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(position), 0) FROM events") ?? 0
        var versions: [String: Int64] = [:]
        let insert = try db.cachedStatement(sql: """
            INSERT INTO events (position, stream_id, stream_version, type, schema_version, data,
                                command_id, correlation_id, causation_id, user_id, recorded_at, command_fingerprint)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var ranges: [ClosedRange<Int64>] = []
        ranges.reserveCapacity(appends.count)
        for append in appends {
            let current = try versions[append.streamId] ?? knownVersion(of: append.streamId, db)
            try append.check(streamAt: current)
            let first = head + 1
            for (offset, event) in append.events.enumerated() {
                head += 1
                let m = event.metadata
                insert.setUncheckedArguments([
                    head, append.streamId, current + Int64(offset) + 1, event.type, event.schemaVersion,
                    event.data.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
                    m.commandId, m.correlationId, m.causationId, m.userId, m.recordedAt,
                    m.commandFingerprint.map { Int64(bitPattern: $0) },
                ])
                try insert.execute()
            }
            versions[append.streamId] = current + Int64(append.events.count)
            ranges.append(first...head)
        }
        return (ranges, versions)
    }

    private func knownVersion(of streamId: String, _ db: Database) throws -> Int64 {
        if let cached = streamVersions.withLock({ $0[streamId] }) { return cached }
        // Cached: every stream's first append asks once, and preparing the statement anew was 12%
        // of `pantry-bench log` appending the first events of 1,000,000 users' streams (`perf`).
        return try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT IFNULL(MAX(stream_version), 0) FROM events WHERE stream_id = ?"), arguments: [streamId]) ?? 0
    }

    package func read(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        try pool.read { db in
            try Self.events(db, sql: "WHERE position > ? ORDER BY position LIMIT ?",
                            arguments: [position, limit])
        }
    }

    package func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent] {
        guard last > position, !types.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: types.count).joined(separator: ", ")
        return try pool.read { db in
            try Self.events(db, sql: "WHERE position > ? AND position <= ? AND type IN (\(placeholders)) ORDER BY position",
                            arguments: StatementArguments([position, last] as [any DatabaseValueConvertible] + types.sorted()))
        }
    }

    package func readUsers(after position: Int64, through last: Int64, type: String) throws -> [EventUser] {
        guard last > position else { return [] }
        return try pool.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT position, schema_version, user_id FROM events
                WHERE position > ? AND position <= ? AND type = ? ORDER BY position
                """)
            try statement.setArguments([position, last, type])
            // Straight from SQLite's statement, as `events` reads: this is the replay's hot loop.
            let cursor = try Row.fetchCursor(statement)
            let raw = statement.sqliteStatement
            var users: [EventUser] = []
            while try cursor.next() != nil {
                let userId = sqlite3_column_text(raw, 2).map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: Int(sqlite3_column_bytes(raw, 2))), as: UTF8.self)
                } ?? ""
                users.append(EventUser(position: sqlite3_column_int64(raw, 0), schemaVersion: Int(sqlite3_column_int64(raw, 1)),
                                       userId: userId))
            }
            return users
        }
    }

    package func read(positions: [Int64]) throws -> [RecordedEvent] {
        try pool.read { db in
            var events: [RecordedEvent] = []
            for start in stride(from: 0, to: positions.count, by: 500) {
                let chunk = positions[start..<min(start + 500, positions.count)]
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                events += try Self.events(db, sql: "WHERE position IN (\(placeholders))", arguments: StatementArguments(Array(chunk)))
            }
            return events.sorted { $0.position < $1.position }
        }
    }

    package func readStream(_ streamId: String) throws -> [RecordedEvent] {
        try pool.read { db in
            try Self.events(db, sql: "WHERE stream_id = ? ORDER BY stream_version",
                            arguments: [streamId])
        }
    }

    package func acceptedCommands(_ commandIds: [String]) throws -> [String: AcceptedCommand] {
        guard !commandIds.isEmpty else { return [:] }
        return try onWarmestConnection { db in
            // One cached statement asked once per id: a statement with an `IN` list of the batch's
            // ids had to be prepared anew for every batch, which was a third of the lookup's cost.
            let statement = try db.cachedStatement(sql: """
                SELECT MIN(position), MAX(position), command_fingerprint FROM events WHERE command_id = ?
                """)
            var found: [String: AcceptedCommand] = [:]
            for commandId in commandIds where found[commandId] == nil {
                guard let row = try Row.fetchOne(statement, arguments: [commandId]),
                      let first = row[0] as Int64?, let last = row[1] as Int64? else { continue }
                let fingerprint: Int64? = row[2]
                found[commandId] = AcceptedCommand(positions: first...last, fingerprint: fingerprint.map { UInt64(bitPattern: $0) })
            }
            return found
        }
    }

    package func earnedPoints(_ points: [PointKey]) throws -> Set<PointKey> {
        guard !points.isEmpty else { return [] }
        return try onWarmestConnection { db in
            // The same expressions as the index's, so SQLite searches the index.
            let statement = try db.cachedStatement(sql: """
                SELECT 1 FROM events WHERE type = '\(EventType.pointEarned.rawValue)' AND user_id = ?
                AND json_extract(data, '$.recipeId') = ? AND json_extract(data, '$.ingredient') = ? LIMIT 1
                """)
            return Set(try points.filter { point in
                try Int.fetchOne(statement, arguments: [point.userId, point.recipeId.rawValue, point.ingredient]) != nil
            })
        }
    }

    /// The same expressions as the index's, so SQLite reads only the index's entries for one
    /// user and recipe.
    private static let earnedIngredientsQuery = """
        SELECT DISTINCT json_extract(data, '$.ingredient') FROM events
        WHERE type = '\(EventType.pointEarned.rawValue)' AND user_id = ? AND json_extract(data, '$.recipeId') = ?
        ORDER BY 1 LIMIT ?
        """

    package func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients {
        // One read transaction: the head and the points of one snapshot.
        try pool.read { db in
            let head = try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(position), 0) FROM events") ?? 0
            let ingredients = try String.fetchAll(db.cachedStatement(sql: Self.earnedIngredientsQuery),
                                                  arguments: [userId, recipeId, EarnedIngredients.limit])
            return EarnedIngredients(head: head, ingredients: ingredients)
        }
    }

    /// The plan SQLite chooses for `earnedIngredients`, for the test that keeps it on the index.
    package func planOfEarnedIngredients() throws -> String {
        try pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.earnedIngredientsQuery, arguments: ["u", "r", 1])
                .map { $0["detail"] as String? ?? "" }.joined(separator: "\n")
        }
    }

    package func headPosition() throws -> Int64 {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(position), 0) FROM events") ?? 0 }
    }

    /// Positions counted per read transaction in `countsByType`: well within the
    /// `BackgroundCheckpointer.restartWait` a RESTART waits for readers (20,000 took 11-15 ms
    /// under the soak's load).
    static let countChunk: Int64 = 5_000
    /// How long `countsByType` holds no read transaction between two chunks: several of a waiting
    /// RESTART's tries, which come every 0.2 ms (`Database.BusyMode.retrying`).
    static let countPause: TimeInterval = 0.001

    /// Counted up to the head as it is when the count starts, `chunk` positions per read
    /// transaction, with `pause` between them. Positions up to that head never change, so the sum
    /// is the count at that head. The WAL cannot start over while a reader is in it:
    /// - one scan of a large log held its snapshot for seconds (`pantry stats` every 10 s let the
    ///   log's WAL reach 203 MiB in a 45-minute soak);
    /// - chunks of 20,000 read back to back still left a RESTART no moment without a reader, for
    ///   the whole count (2-3 s on a 1.55 GB log of about 3.7 million events under load; the WAL
    ///   reached 115.9 MiB in the next 45-minute soak).
    package func countsByType() throws -> [String: Int] {
        try countsByType(chunk: Self.countChunk, pause: Self.countPause)
    }

    func countsByType(chunk: Int64, pause: TimeInterval) throws -> [String: Int] {
        let head = try headPosition()
        var counts: [String: Int] = [:]
        for start in stride(from: Int64(0), to: head, by: Int(chunk)) {
            if start > 0 { Thread.sleep(forTimeInterval: pause) }
            try pool.read { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT type, COUNT(*) FROM events WHERE position > ? AND position <= ? GROUP BY type
                    """)
                for row in try Row.fetchAll(statement, arguments: [start, min(start + chunk, head)]) {
                    counts[row[0], default: 0] += row[1] as Int
                }
            }
        }
        return counts
    }

    /// Columns by index, in `columns` order: replay reads millions of rows through here.
    private static let columns = """
        position, stream_id, stream_version, type, schema_version, data,
        command_id, correlation_id, causation_id, user_id, recorded_at, command_fingerprint
        """

    /// Reads the columns straight from SQLite's statement (GRDB's documented raw access): replay
    /// reads millions of rows here, and going through `Row` costs more than the reading itself.
    private static func events(_ db: Database, sql: String, arguments: StatementArguments) throws -> [RecordedEvent] {
        let statement = try db.makeStatement(sql: "SELECT \(columns) FROM events \(sql)")
        try statement.setArguments(arguments)
        let cursor = try Row.fetchCursor(statement)
        let raw = statement.sqliteStatement
        func text(_ column: Int32) -> String? {
            guard let bytes = sqlite3_column_text(raw, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(raw, column))), as: UTF8.self)
        }
        var events: [RecordedEvent] = []
        while try cursor.next() != nil {
            events.append(RecordedEvent(
                position: sqlite3_column_int64(raw, 0),
                streamId: text(1) ?? "",
                streamVersion: sqlite3_column_int64(raw, 2),
                type: text(3) ?? "",
                schemaVersion: Int(sqlite3_column_int64(raw, 4)),
                data: sqlite3_column_blob(raw, 5).map { Data(bytes: $0, count: Int(sqlite3_column_bytes(raw, 5))) } ?? Data(),
                metadata: EventMetadata(
                    commandId: text(6) ?? "",
                    correlationId: text(7),
                    causationId: text(8),
                    userId: text(9) ?? "",
                    recordedAt: sqlite3_column_int64(raw, 10),
                    commandFingerprint: sqlite3_column_type(raw, 11) == SQLITE_NULL
                        ? nil : UInt64(bitPattern: sqlite3_column_int64(raw, 11)))))
        }
        return events
    }
}
