import Foundation
import Logging
import NIOCore
import NIOPosix
import PantryEventStore
import PostgresNIO
import Synchronization
import PantryDomain
import PantryLog

/// The event log in PostgreSQL, for a log that must outlive one machine's disk (the server's own
/// replication does the copying). It keeps every guarantee of `SQLiteEventStore`, and passes the
/// same test suite:
///
/// - positions are the primary key, given as head + 1 inside the writer's transaction, so they are
///   dense whatever is rolled back, and a reader's snapshot always sees a prefix of the log (one
///   writer, whose transactions commit in position order);
/// - one writer: a session-level advisory lock taken when the store opens and held by its
///   connection, released by the server when that session ends (a killed core included), as the
///   kernel releases `WriterLock`'s `flock`;
/// - an append is one transaction (PostgreSQL's `synchronous_commit` is on: a commit that returned
///   is on the server's disk), all or nothing;
/// - payloads are stored as the text they are, byte for byte, so checksums and replays agree with
///   the SQLite log they were migrated from.
///
/// The protocol is synchronous (the core's writer and the readers run on threads of their own), so
/// every statement is sent on the store's own event loop and waited for from the calling thread:
/// `run` is the only place that waits, and it is never called on the event loop.
package final class PostgresEventStore: EventStore, @unchecked Sendable {
    /// The key of the writer's advisory lock: "pantry" in ASCII.
    package static let writerLockKey: Int64 = 0x70_61_6E_74_72_79

    package struct WriterHeld: Error, CustomStringConvertible {
        package var address: String
        package var description: String {
            "another pantry process writes the log at \(address) (its PostgreSQL advisory lock is held)"
        }
    }

    package let address: PostgresLogAddress
    private let calls: Calls
    /// The writer's session (it holds the advisory lock and runs the transactions), or the only
    /// session of a read-only store.
    private let writer: Session
    /// Where reads go: another session for a writer, so that a read from another thread (the
    /// snapshot's, a follower's) never runs inside an append's transaction and sees events that
    /// may yet be rolled back.
    private let reader: Session
    private let logger: Logger
    private let readOnly: Bool
    /// Last known version per stream, so an append asks only about streams it has not seen.
    private let streamVersions = Mutex<[String: Int64]>([:])
    /// Appends one at a time, whatever the callers; and what the writer knows of the log's head.
    private let appending = Mutex<WrittenHead>(WrittenHead())

    /// Opens the log, creating its tables if they are missing (a writer), or only reading it.
    /// A writer that finds the advisory lock held for `lockWait` throws `WriterHeld`: the wait
    /// covers a writer that was just killed, whose session the server ends only when it notices
    /// the closed connection (a restarted core would otherwise fail now and then).
    ///
    /// Every call (a connection, each statement) waits at most `timeout`: a server that stops
    /// answering costs a call that long, and the session is then closed and opened again by a
    /// later call. A lost session is opened again at the first call after the loss, then with a
    /// backoff (`Session.backoff`); between attempts calls throw `EventStoreError.unavailable` at once.
    package init(address: PostgresLogAddress, readOnly: Bool = false, lockWait: Duration = .seconds(3),
                timeout: Duration = .seconds(5), logger: Logger = Logger(label: "pantry.postgres-log")) throws {
        self.address = address
        self.readOnly = readOnly
        self.logger = logger
        let calls = Calls(timeout: timeout)
        self.calls = calls
        // The writer's reader must see what it wrote: the primary too, whatever the address says.
        writer = Session(name: readOnly ? "reader" : "writer", address: address, calls: calls, takesLock: !readOnly,
                         needsPrimary: !readOnly || address.targetSession == .readWrite, logger: logger)
        reader = readOnly ? writer : Session(name: "reader", address: address, calls: calls, takesLock: false, needsPrimary: true, logger: logger)
        do {
            let deadline = ContinuousClock.now + lockWait
            while true {
                do {
                    try writer.openFirst()
                    break
                } catch is Session.LockHeld {
                    guard ContinuousClock.now < deadline else { throw WriterHeld(address: address.description) }
                    // Another process (a core still stopping) holds the lock, and PostgreSQL tells no
                    // waiter when it lets go: a retry against what is outside this process, not a poll.
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            if !readOnly { try reader.openFirst() }
        } catch let error as WriterHeld {
            shutDown()
            throw error
        } catch {
            shutDown()
            // PSQLError's description hides everything; a connection's failure holds no secret.
            throw PostgresLogError.unreachable(address: address.description, reason: String(reflecting: error))
        }
        guard !readOnly else { return }
        do {
            try createTables()
            let head = try writer.run("SELECT COALESCE(MAX(position), 0)::BIGINT FROM events").first?.decode(Int64.self) ?? 0
            appending.withLock { $0.known = head }
        } catch {
            shutDown()
            throw error
        }
    }

    deinit {
        shutDown()
    }

    private func shutDown() {
        if reader !== writer { reader.close() }
        writer.close()
        try? calls.group.syncShutdownGracefully()
    }

    /// A reader of a log that another process (the core) creates: nil until that process has
    /// created every table (one transaction), so a reader started at the same moment never sees
    /// a half-made log.
    package static func openForReading(address: PostgresLogAddress, timeout: Duration = .seconds(5),
                                      logger: Logger = Logger(label: "pantry.postgres-log")) throws -> PostgresEventStore? {
        let store = try PostgresEventStore(address: address, readOnly: true, timeout: timeout, logger: logger)
        let ready = try store.reader.run("SELECT to_regclass('events') IS NOT NULL").first?.decode(Bool.self) ?? false
        return ready ? store : nil
    }

    /// The layout of `SQLiteEventStore`'s table after its v4 migration (see `schemas/event-log.md`),
    /// made in one transaction.
    private func createTables() throws {
        try transaction { connection in
            try writer.run("""
                CREATE TABLE IF NOT EXISTS events (
                    position BIGINT PRIMARY KEY,
                    stream_id TEXT NOT NULL,
                    stream_version BIGINT NOT NULL,
                    type TEXT NOT NULL,
                    schema_version INTEGER NOT NULL,
                    data TEXT NOT NULL,
                    command_id TEXT NOT NULL,
                    correlation_id TEXT,
                    causation_id TEXT,
                    user_id TEXT NOT NULL,
                    recorded_at BIGINT NOT NULL,
                    command_fingerprint BIGINT,
                    UNIQUE (stream_id, stream_version)
                )
                """, on: connection)
            // The idempotency record, looked up by command id.
            try writer.run("CREATE INDEX IF NOT EXISTS events_by_command ON events (command_id)", on: connection)
            // The one-point rule's record: every PointEarned by user, recipe and ingredient.
            try writer.run("""
                CREATE INDEX IF NOT EXISTS events_points ON events
                (user_id, ((data::jsonb) ->> 'recipeId'), ((data::jsonb) ->> 'ingredient'))
                WHERE type = '\(unescaped: EventType.pointEarned.rawValue)'
                """, on: connection)
        }
    }

    // MARK: Appending

    package func append(_ appends: [StreamAppend]) throws -> [ClosedRange<Int64>] {
        guard !appends.isEmpty else { return [] }
        guard !readOnly else { throw PostgresLogError.readOnly }
        return try appending.withLock { head in
            let written: (ranges: [ClosedRange<Int64>], versions: [String: Int64])
            var inserted: (head: Int64, commandId: String)?
            do {
                written = try transaction { connection in
                    let written = try insert(appends, on: connection, head: &head)
                    inserted = (written.ranges.last!.upperBound, appends.last!.events.last!.metadata.commandId)
                    return written
                }
            } catch {
                // Whatever the cache learnt may be wrong now: the stored versions are asked again.
                streamVersions.withLock { $0.removeAll() }
                // Every row was sent, and the COMMIT may have reached the server before the
                // session was lost: the next append finds out (`WrittenHead`).
                head.uncommitted = inserted
                throw error
            }
            head.known = written.ranges.last!.upperBound
            head.uncommitted = nil
            // Only a transaction that committed teaches the cache.
            streamVersions.withLock { $0.merge(written.versions) { _, new in new } }
            return written.ranges
        }
    }

    /// What the writer knows of the log's head, to tell when it was written by another than this
    /// store: after the writer's session was lost, another core may have taken the advisory lock,
    /// written, and stopped, before this one took it again. The caller's state would be stale
    /// then (and its idempotency filter would not know the other core's ids), so the append is
    /// refused, once, for it to read the log again.
    private struct WrittenHead {
        /// The head after the last transaction known to have committed (or at open).
        var known: Int64 = 0
        /// The last transaction whose COMMIT was sent and not answered: its head and last
        /// command id, if it committed.
        var uncommitted: (head: Int64, commandId: String)?
    }

    /// Rows per INSERT: 12 values each, under PostgreSQL's 65,535 bound parameters.
    static let rowsPerInsert = 4_000

    private func insert(_ appends: [StreamAppend], on connection: PostgresConnection,
                        head written: inout WrittenHead) throws -> (ranges: [ClosedRange<Int64>], versions: [String: Int64]) {
        var head = try writer.run("SELECT COALESCE(MAX(position), 0)::BIGINT FROM events", on: connection).first?.decode(Int64.self) ?? 0
        if head != written.known {
            let expected = written.known
            // The unanswered COMMIT did commit, if the head ends with its last event.
            let ours = try written.uncommitted.map { uncommitted in
                try uncommitted.head == head && writer.run(
                    "SELECT command_id FROM events WHERE position = \(head)", on: connection).first?.decode(String.self) == uncommitted.commandId
            } ?? false
            written.known = head
            written.uncommitted = nil
            if !ours {
                throw EventStoreError.unavailable(
                    "the log's head is \(head), not \(expected) as this writer left it: another writer wrote while this one's session was lost, and the log must be read again")
            }
        }
        written.uncommitted = nil
        let cached = streamVersions.withLock { $0 }
        var versions: [String: Int64] = [:]
        let unknown = Array(Set(appends.map(\.streamId)).filter { cached[$0] == nil })
        if !unknown.isEmpty {
            for row in try writer.run("""
                SELECT stream_id, MAX(stream_version)::BIGINT FROM events
                WHERE stream_id = ANY(\(unknown)) GROUP BY stream_id
                """, on: connection) {
                let (stream, version) = try row.decode((String, Int64).self)
                versions[stream] = version
            }
        }
        var rows = PostgresBindings(capacity: 12 * min(Self.rowsPerInsert, appends.reduce(0) { $0 + $1.events.count }))
        var rowCount = 0
        var ranges: [ClosedRange<Int64>] = []
        ranges.reserveCapacity(appends.count)
        for append in appends {
            let current = versions[append.streamId] ?? cached[append.streamId] ?? 0
            try append.check(streamAt: current)
            let first = head + 1
            for (offset, event) in append.events.enumerated() {
                head += 1
                let m = event.metadata
                rows.append(head)
                rows.append(append.streamId)
                rows.append(current + Int64(offset) + 1)
                rows.append(event.type)
                rows.append(Int32(event.schemaVersion))
                rows.append(String(decoding: event.data, as: UTF8.self))
                rows.append(m.commandId)
                rows.append(m.correlationId)
                rows.append(m.causationId)
                rows.append(m.userId)
                rows.append(m.recordedAt)
                rows.append(m.commandFingerprint.map { Int64(bitPattern: $0) })
                rowCount += 1
                if rowCount == Self.rowsPerInsert {
                    try insertRows(rows, count: rowCount, on: connection)
                    rows = PostgresBindings(capacity: 12 * Self.rowsPerInsert)
                    rowCount = 0
                }
            }
            versions[append.streamId] = current + Int64(append.events.count)
            ranges.append(first...head)
        }
        if rowCount > 0 { try insertRows(rows, count: rowCount, on: connection) }
        return (ranges, versions)
    }

    private func insertRows(_ binds: PostgresBindings, count: Int, on connection: PostgresConnection) throws {
        var sql = """
            INSERT INTO events (position, stream_id, stream_version, type, schema_version, data,
                                command_id, correlation_id, causation_id, user_id, recorded_at, command_fingerprint)
            VALUES
            """
        sql.reserveCapacity(sql.utf8.count + count * 80)
        for row in 0..<count {
            let base = row * 12
            sql += row == 0 ? " (" : ", ("
            for column in 1...12 {
                sql += column == 1 ? "$\(base + column)" : ", $\(base + column)"
            }
            sql += ")"
        }
        try writer.run(PostgresQuery(unsafeSQL: sql, binds: binds), on: connection)
    }

    // MARK: Reading

    package func read(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        guard limit > 0 else { return [] }
        return try events("WHERE position > \(position) ORDER BY position LIMIT \(Int64(limit))")
    }

    package func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent] {
        guard last > position, !types.isEmpty else { return [] }
        return try events("WHERE position > \(position) AND position <= \(last) AND type = ANY(\(types.sorted())) ORDER BY position")
    }

    package func readUsers(after position: Int64, through last: Int64, type: String) throws -> [EventUser] {
        guard last > position else { return [] }
        return try read("""
            SELECT position, schema_version, user_id FROM events
            WHERE position > \(position) AND position <= \(last) AND type = \(type) ORDER BY position
            """).map { row in
            let (position, schemaVersion, userId) = try row.decode((Int64, Int32, String).self)
            return EventUser(position: position, schemaVersion: Int(schemaVersion), userId: userId)
        }
    }

    package func read(positions: [Int64]) throws -> [RecordedEvent] {
        guard !positions.isEmpty else { return [] }
        return try events("WHERE position = ANY(\(positions)) ORDER BY position")
    }

    package func readStream(_ streamId: String) throws -> [RecordedEvent] {
        try events("WHERE stream_id = \(streamId) ORDER BY stream_version")
    }

    package func acceptedCommands(_ commandIds: [String]) throws -> [String: AcceptedCommand] {
        guard !commandIds.isEmpty else { return [:] }
        var found: [String: AcceptedCommand] = [:]
        // By `events_by_command` (one index scan for the batch's ids). Written as one LATERAL
        // probe per id instead (as `earnedPoints` is), the end-to-end benchmark did no better
        // (12,654-13,764 commands/s against 17,743), so the plain form stays.
        for row in try read("""
            SELECT command_id, MIN(position)::BIGINT, MAX(position)::BIGINT, MIN(command_fingerprint)::BIGINT FROM events
            WHERE command_id = ANY(\(commandIds)) GROUP BY command_id
            """) {
            let (id, first, last, fingerprint) = try row.decode((String, Int64, Int64, Int64?).self)
            found[id] = AcceptedCommand(positions: first...last, fingerprint: fingerprint.map { UInt64(bitPattern: $0) })
        }
        return found
    }

    package func earnedPoints(_ points: [PointKey]) throws -> Set<PointKey> {
        guard !points.isEmpty else { return [] }
        // One statement for the batch, and each point one probe of `events_points` (the same
        // expressions as the index's). A LATERAL subquery with LIMIT 1 leaves the planner no
        // other way: written as EXISTS, a log whose statistics were not gathered yet (the
        // first minute of a new or migrated one) was hash-joined with every PointEarned, and a
        // batch of 2,000 points took 60-150 ms instead of a few (end to end 3,746 commands/s).
        var earned: Set<PointKey> = []
        for row in try read(Self.earnedPointsQuery(points)) {
            let (user, recipe, ingredient) = try row.decode((String, String, String).self)
            earned.insert(PointKey(userId: user, recipeId: RecipeID(recipe), ingredient: ingredient))
        }
        return earned
    }

    private static func earnedPointsQuery(_ points: [PointKey]) -> PostgresQuery {
        let users = points.map(\.userId), recipes = points.map(\.recipeId.rawValue), ingredients = points.map(\.ingredient)
        return """
            SELECT p.u, p.r, p.i FROM unnest(\(users)::text[], \(recipes)::text[], \(ingredients)::text[]) AS p(u, r, i)
            CROSS JOIN LATERAL (SELECT 1 FROM events WHERE type = '\(unescaped: EventType.pointEarned.rawValue)' AND user_id = p.u
                                AND ((data::jsonb) ->> 'recipeId') = p.r AND ((data::jsonb) ->> 'ingredient') = p.i
                                LIMIT 1) AS found
            """
    }

    /// The plan PostgreSQL chooses for `earnedPoints`, for the test that keeps it on the index.
    package func planOfEarnedPoints(_ points: [PointKey]) throws -> String {
        let query = Self.earnedPointsQuery(points)
        return try read(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds))
            .map { try $0.decode(String.self) }.joined(separator: "\n")
    }

    package func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients {
        // The head first: the points read after it hold every one up to it. The same expressions
        // as `events_points`; "C" orders by bytes, as SQLite does.
        let head = try headPosition()
        let ingredients = try read("""
            SELECT DISTINCT ((data::jsonb) ->> 'ingredient') COLLATE "C" FROM events
            WHERE type = '\(unescaped: EventType.pointEarned.rawValue)' AND user_id = \(userId)
            AND ((data::jsonb) ->> 'recipeId') = \(recipeId) ORDER BY 1 LIMIT \(EarnedIngredients.limit)
            """).map { try $0.decode(String.self) }
        return EarnedIngredients(head: head, ingredients: ingredients)
    }

    package func headPosition() throws -> Int64 {
        try read("SELECT COALESCE(MAX(position), 0)::BIGINT FROM events").first?.decode(Int64.self) ?? 0
    }

    package func countsByType() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try read("SELECT type, COUNT(*)::BIGINT FROM events GROUP BY type") {
            let (type, count) = try row.decode((String, Int64).self)
            counts[type] = Int(count)
        }
        return counts
    }

    private func events(_ filter: PostgresQuery) throws -> [RecordedEvent] {
        let query = PostgresQuery(unsafeSQL: """
            SELECT position, stream_id, stream_version, type, schema_version, data,
                   command_id, correlation_id, causation_id, user_id, recorded_at, command_fingerprint
            FROM events \(filter.sql)
            """, binds: filter.binds)
        let rows = try read(query)
        var events: [RecordedEvent] = []
        events.reserveCapacity(rows.count)
        for row in rows {
            let (position, stream, version, type, schemaVersion, data, commandId, correlation, causation, user, recordedAt, fingerprint)
                = try row.decode((Int64, String, Int64, String, Int32, String, String, String?, String?, String, Int64, Int64?).self)
            events.append(RecordedEvent(
                position: position, streamId: stream, streamVersion: version, type: type, schemaVersion: Int(schemaVersion),
                data: Data(data.utf8),
                metadata: EventMetadata(commandId: commandId, correlationId: correlation, causationId: causation, userId: user,
                                        recordedAt: recordedAt, commandFingerprint: fingerprint.map { UInt64(bitPattern: $0) })))
        }
        return events
    }

    // MARK: The one crossing from the event loop

    /// `run` on the reading session.
    private func read(_ query: PostgresQuery) throws -> [PostgresRow] {
        try reader.run(query)
    }

    /// `body` between BEGIN and COMMIT on one connection of the writer's session, or rolled back
    /// if it throws (by the server, if the session was lost).
    private func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try writer.connection()
        try writer.run("BEGIN", on: connection)
        let result: T
        do {
            result = try body(connection)
        } catch {
            _ = try? writer.run("ROLLBACK", on: connection)
            throw error
        }
        try writer.run("COMMIT", on: connection)
        return result
    }

    /// Fails every call under way at once, and every later one (`EventStoreError.unavailable`),
    /// and closes the sessions: for a process that stops while its server is gone, whose threads
    /// would otherwise wait out their calls' deadlines, and their retries.
    package func interrupt() {
        calls.interrupt()
        if reader !== writer { reader.close() }
        writer.close()
    }

    /// Gathers the planner's statistics now, rather than when autovacuum comes round (after a
    /// bulk copy: `pantry migrate-log`).
    package func analyze() throws {
        try writer.run("ANALYZE events")
    }

    /// Makes an empty database on the server of `server` (a log to migrate into, a test's own log),
    /// and answers its address.
    package static func createDatabase(named name: String, server: PostgresLogAddress,
                                      logger: Logger = Logger(label: "pantry.postgres-log")) throws -> PostgresLogAddress {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw PostgresLogError.badAddress("a database name of lowercase letters, digits and _ only, not \(name)")
        }
        let admin = try PostgresEventStore(address: server, readOnly: true, logger: logger)
        try admin.writer.run("CREATE DATABASE \(unescaped: name)")
        admin.close()
        var address = server
        address.database = name
        return address
    }

    /// Closes the connection (and so releases a writer's lock) now rather than when the store is freed.
    package func close() {
        if reader !== writer { reader.close() }
        writer.close()
    }
}

package enum PostgresLogError: Error, CustomStringConvertible {
    case readOnly
    case badAddress(String)
    case unreachable(address: String, reason: String)

    package var description: String {
        switch self {
        case .readOnly: "this PostgreSQL log was opened for reading only"
        case .badAddress(let reason): "not a PostgreSQL log address: \(reason)"
        case .unreachable(let address, let reason): "cannot connect to the PostgreSQL log at \(address): \(reason)"
        }
    }
}
