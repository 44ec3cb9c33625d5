import Foundation
import PantryDomain
import PantryEventStore
import PantryPostgresLog
import PantryTestPostgres
import PantryTestSupport
import Testing
import PantryLog

/// What every `EventStore` keeps across opens, readers and writers: run against each implementation.
@Suite struct EventStoreLogTests {
    @Test(arguments: StoreKind.allCases) func reopeningKeepsEverything(_ kind: StoreKind) throws {
        try withLog(kind) { log throws in
            var before: [RecordedEvent] = []
            do {
                let store = try log.writer()
                _ = try store.append([append("s1", expecting: 0, event("A"), event("B")), append("s2", expecting: 0, event("C"))])
                _ = try store.append([append("s1", expecting: 2, event("D", #"{"emoji":"🍅"}"#))])
                before = try store.read(after: 0, limit: 100)
            }
            let reopened = try log.writer()
            #expect(try reopened.read(after: 0, limit: 100) == before)
            #expect(try reopened.headPosition() == 4)
            #expect(try reopened.countsByType() == ["A": 1, "B": 1, "C": 1, "D": 1])
            // The stream versions are known again (from the log, not a cache).
            #expect(throws: EventStoreError.wrongExpectedVersion(streamId: "s1", expected: 0, actual: 3)) {
                try reopened.append([append("s1", expecting: 0, event("E"))])
            }
            #expect(try reopened.append([append("s1", expecting: 3, event("E"))]) == [5...5])
        }
    }

    @Test(arguments: StoreKind.allCases) func aReaderSeesWhatTheWriterAppendedAndCannotAppend(_ kind: StoreKind) throws {
        try withLog(kind) { log throws in
            #expect(try log.openForReading() == nil, "no log before its writer made it")
            let writer = try log.writer()
            _ = try writer.append([append("s1", expecting: 0, event("A"))])
            let reader = try #require(try log.openForReading())
            #expect(try reader.headPosition() == 1)
            _ = try writer.append([append("s1", expecting: 1, event("B")), append("s2", expecting: 0, event("C"))])
            #expect(try reader.headPosition() == 3)
            #expect(try reader.read(after: 1, limit: 10) == writer.read(after: 1, limit: 10))
            #expect(try reader.readStream("s1").map(\.type) == ["A", "B"])
            #expect(try reader.countsByType() == ["A": 1, "B": 1, "C": 1])
            #expect(throws: (any Error).self) { try reader.append([append("s3", expecting: 0, event("X"))]) }
            #expect(try writer.headPosition() == 3)
        }
    }

    @Test(arguments: StoreKind.allCases) func aSecondWriterIsRefusedWhileTheFirstHoldsTheLog(_ kind: StoreKind) throws {
        try withLog(kind) { log throws in
            try log.secondWriterIsRefused {}
        }
    }

    /// Idempotency is asked of the log: where each command's events are and what it asked for.
    @Test(arguments: StoreKind.allCases) func acceptedCommandsAreFoundByTheirIds(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            #expect(try store.acceptedCommands(["c1"]).isEmpty)
            var first = event("A", commandId: "c1"), second = event("B", commandId: "c1")
            first.metadata.commandFingerprint = UInt64.max - 1
            second.metadata.commandFingerprint = UInt64.max - 1
            _ = try store.append([append("s1", expecting: 0, first), append("s2", expecting: 0, second)])
            _ = try store.append([append("s1", expecting: 1, event("C", commandId: "c2"))])
            let found = try store.acceptedCommands(["c1", "c2", "c3"])
            #expect(found == ["c1": AcceptedCommand(positions: 1...2, fingerprint: UInt64.max - 1),
                              "c2": AcceptedCommand(positions: 3...3, fingerprint: nil)])
            // More ids than one statement's worth.
            let many = (0..<1_200).map { "x\($0)" } + ["c2"]
            #expect(try store.acceptedCommands(many).keys.sorted() == ["c2"])
        }
    }

    /// A rebuild's users-only read: one type's positions, versions and users, in order, within the range.
    @Test(arguments: StoreKind.allCases) func readUsersGivesOneTypesPositionsAndUsersInTheRange(_ kind: StoreKind) throws {
        try withLog(kind) { log throws in
            let writer = try log.writer()
            var newer = event("PointEarned", #"{"userId":"u2"}"#, userId: "u2")
            newer.schemaVersion = 7
            _ = try writer.append([append("user-u1", expecting: 0, event("PointEarned", userId: "u1"), event("RecipeSaved", userId: "u1"),
                                          event("PointEarned", userId: "u1")),
                                   append("user-u2", expecting: 0, newer, event("UserDeleted", userId: "u2"))])
            let reader = try #require(try log.openForReading())
            for store in [writer, reader] {
                #expect(try store.readUsers(after: 0, through: 5, type: "PointEarned") == [
                    EventUser(position: 1, schemaVersion: 1, userId: "u1"), EventUser(position: 3, schemaVersion: 1, userId: "u1"),
                    EventUser(position: 4, schemaVersion: 7, userId: "u2"),
                ])
                #expect(try store.readUsers(after: 1, through: 3, type: "PointEarned") == [EventUser(position: 3, schemaVersion: 1, userId: "u1")])
                #expect(try store.readUsers(after: 0, through: 5, type: "UserDeleted") == [EventUser(position: 5, schemaVersion: 1, userId: "u2")])
                #expect(try store.readUsers(after: 3, through: 3, type: "PointEarned") == [])
                #expect(try store.readUsers(after: 0, through: 5, type: "Nothing") == [])
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func earnedPointsAreTheOnesTheLogHolds(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            _ = try store.append([append("user-u1", expecting: 0,
                                         event("PointEarned", #"{"userId":"u1","recipeId":"r1","ingredient":"olive oil"}"#),
                                         event("RecipeSaved", #"{"userId":"u1","recipeId":"r1","ingredient":"salt"}"#))])
            #expect(try store.earnedPoints([]) == [])
            #expect(try store.earnedPoints([PointKey(userId: "u1", recipeId: "r1", ingredient: "olive oil"),
                                            PointKey(userId: "u1", recipeId: "r1", ingredient: "salt"),
                                            PointKey(userId: "u2", recipeId: "r1", ingredient: "olive oil")])
                    == [PointKey(userId: "u1", recipeId: "r1", ingredient: "olive oil")])
        }
    }

    /// The API's "already counted", asked of the point index: one user's points for one recipe,
    /// each once, in byte order whatever the database's collation, at a head that covers them.
    @Test(arguments: StoreKind.allCases) func earnedIngredientsAreOneUsersPointsForOneRecipe(_ kind: StoreKind) throws {
        try withLog(kind) { log throws in
            let store = try log.writer()
            #expect(try store.earnedIngredients(userId: "u1", recipeId: "r1") == EarnedIngredients(head: 0, ingredients: []))
            func point(_ user: String, _ recipe: String, _ ingredient: String, _ n: Int) -> NewEvent {
                event("PointEarned", #"{"userId":"\#(user)","recipeId":"\#(recipe)","ingredient":"\#(ingredient)"}"#,
                      commandId: "c\(n)", userId: user)
            }
            _ = try store.append([append("user-u1", expecting: 0,
                                         point("u1", "r1", "zucchini", 1), point("u1", "r1", "éclair", 2), point("u1", "r1", "egg", 3),
                                         // A log written before the one-point rule may hold a point twice.
                                         point("u1", "r1", "egg", 4), point("u1", "r2", "salt", 5)),
                                  append("user-u2", expecting: 0, point("u2", "r1", "basil", 6),
                                         event("RecipeSaved", #"{"userId":"u1","recipeId":"r1","ingredient":"flour"}"#, commandId: "c7"))])
            #expect(try store.earnedIngredients(userId: "u1", recipeId: "r1")
                    == EarnedIngredients(head: 7, ingredients: ["egg", "zucchini", "éclair"]))
            #expect(try store.earnedIngredients(userId: "u2", recipeId: "r1").ingredients == ["basil"])
            #expect(try store.earnedIngredients(userId: "u1", recipeId: "r3").ingredients == [])
            // A reader that is not the writer sees the same.
            let reader = try #require(try log.openForReading())
            #expect(try reader.earnedIngredients(userId: "u1", recipeId: "r2") == EarnedIngredients(head: 7, ingredients: ["salt"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func eventsAreReadByPosition(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            for i in 0..<10 { _ = try store.append([append("s\(i)", expecting: 0, event("E\(i)", commandId: "c\(i)"))]) }
            #expect(try store.read(positions: []).isEmpty)
            #expect(try store.read(positions: [7, 2, 11, 5]).map(\.position) == [2, 5, 7])
            #expect(try store.read(positions: Array(1...10)) == store.read(after: 0, limit: 100))
        }
    }

    /// A group commit's batch can be thousands of events: one transaction, dense, whatever the
    /// store does to send it.
    @Test(arguments: StoreKind.allCases) func aLargeBatchIsOneDenseAppend(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            _ = try store.append([append("first", expecting: 0, event("A"))])
            let batch = (0..<9_001).map { i in append("s\(i % 700)", expecting: Int64(i / 700), event("E", #"{"i":\#(i)}"#, commandId: "c\(i)")) }
            let ranges = try store.append(batch)
            let expected: [ClosedRange<Int64>] = (Int64(2)...9_002).map { $0...$0 }
            #expect(ranges == expected)
            #expect(try store.headPosition() == 9_002)
            // A batch that fails late leaves nothing of its first thousands.
            let failing = batch.map { append("t" + $0.streamId, expecting: $0.expectedVersion, $0.events[0]) } + [append("s0", expecting: 0, event("X"))]
            #expect(throws: EventStoreError.wrongExpectedVersion(streamId: "s0", expected: 0, actual: 13)) { try store.append(failing) }
            #expect(try store.headPosition() == 9_002)
            #expect(try store.read(after: 9_000, limit: 10).map(\.position) == [9_001, 9_002])
        }
    }
}

@Suite struct SQLiteEventStoreIndexTests {
    /// The counted read touches only the index's entries for one user and recipe, never the events.
    @Test func earnedIngredientsAreReadFromThePointIndex() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
            let plan = try store.planOfEarnedIngredients()
            #expect(plan.contains("USING INDEX events_points") || plan.contains("USING COVERING INDEX events_points"), "\(plan)")
            #expect(!plan.contains("SCAN events"), "\(plan)")
        }
    }
}

@Suite struct PostgresEventStoreTests {
    /// Several hosts as libpq spells them: tried in order, read back the same; what is not such
    /// an address is refused with the reason.
    @Test func anAddressNamesSeveralHostsAndTheSessionItWants() throws {
        let address = try PostgresLogAddress("postgres://pantry:p%40ss@db1:5433,db2,[::1]:6000/log?target_session_attrs=read-write")
        #expect(address.hosts == [.init(name: "db1", port: 5433), .init(name: "db2", port: 5432), .init(name: "::1", port: 6000)])
        #expect(address.username == "pantry" && address.password == "p@ss" && address.database == "log")
        #expect(address.targetSession == .readWrite)
        #expect(address.description == "postgres://pantry@db1:5433,db2:5432,[::1]:6000/log?target_session_attrs=read-write")
        #expect(try PostgresLogAddress(address.url) == address)
        let one = try PostgresLogAddress("postgres://postgres@127.0.0.1:5999/postgres")
        #expect(one.hosts == [.init(name: "127.0.0.1", port: 5999)] && one.targetSession == .any)
        let socket = try PostgresLogAddress("postgres://me@/db?host=/run/postgresql&port=5433")
        #expect(socket.socketDirectory == "/run/postgresql" && socket.port == 5433)
        for bad in ["postgres://u@db1:x/db", "postgres://u@db1,,db2/db", "postgres://u@db/db?target_session_attrs=standby"] {
            #expect(throws: PostgresLogError.self, "\(bad)") { try PostgresLogAddress(bad) }
        }
    }

    /// A session the server ends (`pg_terminate_backend`, as a restart or a failover does) is
    /// noticed, the next call fails at once as unavailable while the server refuses a new one
    /// (the database closed to connections here), and a later call opens it again (the writer's
    /// lock included) and goes on where the log is.
    @Test func aTerminatedSessionFailsFastAndIsOpenedAgain() async throws {
        let address = try TestPostgres.freshDatabase()
        let store = try PostgresEventStore(address: address, timeout: .seconds(2))
        #expect(try store.append([append("s1", expecting: 0, event("A"))]) == [1...1])
        try TestPostgres.psql("ALTER DATABASE \(address.database) ALLOW_CONNECTIONS false")
        try TestPostgres.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(address.database)'")
        let started = ContinuousClock.now
        for _ in 0..<3 {
            #expect {
                try store.append([append("s1", expecting: 1, event("B"))])
            } throws: { error in
                if case .unavailable? = error as? EventStoreError { true } else { false }
            }
            #expect { try store.headPosition() } throws: { error in
                if case .unavailable? = error as? EventStoreError { true } else { false }
            }
        }
        #expect(ContinuousClock.now - started < .seconds(1), "failed at once, not after a deadline")
        try TestPostgres.psql("ALTER DATABASE \(address.database) ALLOW_CONNECTIONS true")
        // Within the longest backoff (1 s) a call opens the sessions again.
        var appended: [ClosedRange<Int64>]?
        _ = try await waitUntil(timeout: .seconds(5), interval: .milliseconds(50)) {
            appended = try? store.append([append("s1", expecting: 1, event("B"))])
            return appended != nil
        }
        #expect(appended == [2...2])
        #expect(try store.read(after: 0, limit: 10).map(\.type) == ["A", "B"])
        // The lock was taken again with the new session: a second writer is refused.
        #expect(throws: PostgresEventStore.WriterHeld.self) { try PostgresEventStore(address: address, lockWait: .zero) }
    }

    /// `interrupt` ends a call that waits on the server (here for a lock another session holds:
    /// the server answers nothing meanwhile), and fails every later one at once: what lets a core
    /// whose server is gone stop within its 2 s.
    @Test func interruptEndsACallThatWaitsOnTheServer() async throws {
        let address = try TestPostgres.freshDatabase()
        let store = try PostgresEventStore(address: address, timeout: .seconds(30))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Held far longer than the test: with every suite at once on 2 cores, this task once waited
        // longer for a thread than a 5 s lock lasted, and never saw it.
        holder.arguments = ["psql", "-qAt", address.url, "-c", "BEGIN; LOCK TABLE events; SELECT pg_sleep(120)"]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer {
            // Its server session ends it (psql waits out its statement whatever signal it gets).
            _ = try? TestPostgres.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(address.database)' AND pid <> pg_backend_pid()")
            holder.waitUntilExit()
        }
        try #require(try await waitUntil(interval: .milliseconds(50)) {
            try TestPostgres.psql("SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted AND relation = 'events'::regclass",
                                  database: address.database) == "1"
        }, "the other session took the lock")
        let started = ContinuousClock.now
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { store.interrupt() }
        #expect { try store.headPosition() } throws: { error in
            if case .unavailable? = error as? EventStoreError { true } else { false }
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(250) && waited < .seconds(2), "\(waited)")
        let again = ContinuousClock.now
        #expect { try store.headPosition() } throws: { error in
            if case .unavailable? = error as? EventStoreError { true } else { false }
        }
        #expect(ContinuousClock.now - again < .milliseconds(100))
    }

    /// The one-point rule asks the log for a batch's points by index, even before PostgreSQL has
    /// gathered statistics on a new or just-migrated log: then, written as EXISTS, the lookup was
    /// hash-joined with every PointEarned (60-150 ms a batch, the core at 3,746 commands/s).
    @Test func earnedPointsAreFoundByIndexBeforeAnyStatistics() throws {
        let address = try TestPostgres.freshDatabase()
        let store = try PostgresEventStore(address: address)
        let points = (0..<3_000).map { i in
            append("user-u\(i % 50)", expecting: Int64(i / 50),
                   event("PointEarned", #"{"userId":"u\#(i % 50)","recipeId":"r\#(i / 50)","ingredient":"salt"}"#, commandId: "c\(i)", userId: "u\(i % 50)"))
        }
        _ = try store.append(points)
        let asked = (0..<2_000).map { PointKey(userId: "u\($0 % 50)", recipeId: RecipeID("r\($0)"), ingredient: "salt") }
        let plan = try store.planOfEarnedPoints(asked)
        #expect(plan.contains("events_points"), "\(plan)")
        #expect(!plan.contains("Hash") && !plan.contains("Seq Scan on events"), "\(plan)")
        // Recipes r0...r59 were earned by every user.
        #expect(try store.earnedPoints(asked) == Set(asked.prefix(60)))
    }
}
