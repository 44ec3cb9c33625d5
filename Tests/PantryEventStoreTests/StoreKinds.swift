import Foundation
import PantryEventStore
import PantryPostgresLog
import PantryTestPostgres
import Testing

/// Every implementation of `EventStore`: the suites that take a `StoreKind` run once for each.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// One empty log of a kind, for one test: opened as its writer (as many times as a test reopens
/// it) or as a reader.
struct TestLog {
    let kind: StoreKind
    let sqlitePath: String?
    let postgres: PostgresLogAddress?

    func writer() throws -> any EventStore {
        switch kind {
        case .sqlite: try SQLiteEventStore(path: sqlitePath!)
        case .postgres: try PostgresEventStore(address: postgres!)
        }
    }

    /// nil until a writer has created the log.
    func openForReading() throws -> (any EventStore)? {
        switch kind {
        case .sqlite: try SQLiteEventStore.openForReading(path: sqlitePath!)
        case .postgres: try PostgresEventStore.openForReading(address: postgres!)
        }
    }

    /// What a second writer of this log is refused with, while the first holds it.
    func secondWriterIsRefused(whileHeld body: () throws -> Void) throws {
        switch kind {
        case .sqlite:
            // The SQLite log's single writer is the lock file beside it (`WriterLock`).
            let lockPath = sqlitePath! + ".lock"
            var first: WriterLock? = try WriterLock(path: lockPath)
            #expect(throws: WriterLock.Held.self) { try WriterLock(path: lockPath) }
            try body()
            withExtendedLifetime(first) {}
            first = nil
            _ = try WriterLock(path: lockPath)
        case .postgres:
            var first: PostgresEventStore? = try PostgresEventStore(address: postgres!)
            #expect(throws: PostgresEventStore.WriterHeld.self) { try PostgresEventStore(address: postgres!, lockWait: .zero) }
            try body()
            withExtendedLifetime(first) {}
            first = nil
            // The lock goes with the session: the next writer gets it.
            _ = try PostgresEventStore(address: postgres!)
        }
    }
}

/// A new, empty log of `kind` (an SQLite file in a fresh directory, or a fresh PostgreSQL database).
func withLog<T>(_ kind: StoreKind, _ body: (TestLog) throws -> T) throws -> T {
    switch kind {
    case .sqlite:
        return try withTemporaryDirectory { dir in
            try body(TestLog(kind: kind, sqlitePath: dir.appendingPathComponent("events.sqlite").path, postgres: nil))
        }
    case .postgres:
        let address = try TestPostgres.freshDatabase()
        return try body(TestLog(kind: kind, sqlitePath: nil, postgres: address))
    }
}

/// A new, empty log of `kind`, opened as its writer.
func withStore<T>(_ kind: StoreKind, _ body: (any EventStore) throws -> T) throws -> T {
    try withLog(kind) { log throws in try body(log.writer()) }
}
