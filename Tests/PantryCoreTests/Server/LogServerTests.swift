import Foundation
import Logging
import PantryBus
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing
import ZeroMQ
import PantryLog
import PantryWire

/// The log service and `RemoteEventStore`, in process over real ZeroMQ sockets: every read a
/// follower makes answers what the log's file answers, with sealed fields opened.
@Suite struct LogServerTests {
    final class Served {
        let directory: URL
        let store: SQLiteEventStore
        let keys: UserKeyStore
        let context: ZMQContext
        let remote: RemoteEventStore
        let serving: Task<Void, any Error>

        init(limits: LogServer.Limits, fill: (SQLiteEventStore, UserKeyStore) throws -> Void) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-log-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
            keys = try UserKeyStore(path: directory.appendingPathComponent("keys.sqlite").path, readOnly: false)
            try fill(store, keys)
            var quiet = Logger(label: "test")
            quiet.logLevel = .critical
            context = try ZMQContext()
            let endpoint = "ipc://\(directory.appendingPathComponent("log.sock").path)"
            let server = try LogServer(log: store, vault: keys, context: context, endpoint: endpoint,
                                       snapshots: directory.appendingPathComponent("snapshots"), limits: limits, logger: quiet)
            serving = Task.immediate { try await server.run() }
            remote = RemoteEventStore(context: context, endpoint: endpoint)
        }

        deinit {
            serving.cancel()
            context.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }

        /// What the remote store must answer: the file's events, sealed fields opened.
        func opened(_ events: [RecordedEvent]) throws -> [RecordedEvent] {
            try events.map { event in
                var opened = event
                opened.data = try EventCoding.opened(type: event.type, data: event.data, vault: keys)
                opened.metadata.commandFingerprint = nil // not part of the event document
                return opened
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func everyReadAnswersWhatTheFileAnswersInBoundedPieces() throws {
        var limits = LogServer.Limits()
        limits.maxEvents = 7
        limits.maxBytes = 3_000
        let served = try Served(limits: limits) { store, keys in
            let processor = try CommandProcessor(store: store, keys: keys)
            let script = (0..<12).flatMap { CoreServerTests.script(for: $0).map(\.0) }
                + [CommandEnvelope(commandId: "gone", command: .deleteUser(DeleteUser(userId: "u3"))),
                   CommandEnvelope(commandId: "pw", command: .changePassword(ChangePassword(userId: "u4", passwordHash: CoreServerTests.hash)))]
            _ = processor.process(script)
        }
        let head = try served.store.headPosition()
        #expect(try served.remote.headPosition() == head)
        for (after, limit) in [(Int64(0), 1_000), (0, 5), (17, 30), (head - 3, 10), (head, 10)] {
            #expect(try served.remote.read(after: after, limit: limit) == served.opened(served.store.read(after: after, limit: limit)))
        }
        for types: Set<String> in [["UserRegistered", "PasswordChanged", "UserDeleted"], ["AdjustCart", "CartAdjusted"], ["PointEarned"]] {
            for (after, through) in [(Int64(0), head), (10, 60), (5, head + 50)] {
                #expect(try served.remote.read(after: after, through: through, types: types)
                        == served.opened(served.store.read(after: after, through: min(through, head), types: types)))
            }
        }
        let positions: [Int64] = [head, 1, 2, 40, 41, 42, head + 9, 77]
        #expect(try served.remote.read(positions: positions) == served.opened(served.store.read(positions: positions)))
        // The API's counted read: what the file's point index answers; an id a command would refuse
        // is refused, nothing read.
        for user in ["u0", "u5", "nobody"] {
            #expect(try served.remote.earnedIngredients(userId: user, recipeId: "\(user)-r1")
                    == served.store.earnedIngredients(userId: user, recipeId: "\(user)-r1"))
        }
        #expect(try !served.remote.earnedIngredients(userId: "u5", recipeId: "u5-r1").ingredients.isEmpty)
        #expect(throws: LogRead.Invalid.self) { try served.remote.earnedIngredients(userId: "u/5", recipeId: "u5-r1") }
        #expect(throws: LogRead.Invalid.self) { try served.remote.earnedIngredients(userId: "u5", recipeId: String(repeating: "r", count: 129)) }

        // The reader needs no vault: opened fields decode alone, and a deleted user's are absent.
        let accounts = try served.remote.read(after: 0, through: head, types: ["UserRegistered", "PasswordChanged"]).map {
            try EventCoding.decode(type: $0.type, schemaVersion: $0.schemaVersion, data: $0.data, vault: nil)
        }
        #expect(accounts.contains(.userRegistered(UserRegistered(userId: "u3", account: nil))))
        #expect(accounts.contains(.userRegistered(UserRegistered(userId: "u5", username: "user_u5", email: "u5@example.org",
                                                                 passwordHash: CoreServerTests.hash))))
        #expect(accounts.contains(.passwordChanged(PasswordChanged(userId: "u4", passwordHash: CoreServerTests.hash))))
    }

    @Test("The log service sends a worker's snapshot in bounded chunks that reassemble to the file, and refuses one it does not keep, a replaced one and an offset beyond the end",
          .timeLimit(.minutes(2)))
    func snapshotsGoInChunks() throws {
        var limits = LogServer.Limits()
        limits.snapshotChunkBytes = 1_000
        let served = try Served(limits: limits) { store, keys in
            _ = try CommandProcessor(store: store, keys: keys).process((0..<3).flatMap { CoreServerTests.script(for: $0).map(\.0) })
        }
        let snapshots = served.directory.appendingPathComponent("snapshots")
        try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
        let bytes = Data((0..<3_500).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let manifest = SnapshotManifest(projection: .carts, layout: 1, position: 5, size: Int64(bytes.count),
                                        sha256: String(repeating: "ab", count: 32))
        try bytes.write(to: snapshots.appendingPathComponent(manifest.fileName))
        try manifest.json.write(to: snapshots.appendingPathComponent(SnapshotManifest.manifestName(.carts)))

        var received = Data()
        while received.count < bytes.count {
            let (chunk, piece) = try served.remote.snapshotChunk(of: .carts, position: received.isEmpty ? 0 : 5, offset: Int64(received.count))
            #expect(chunk.manifest == manifest && chunk.offset == Int64(received.count) && chunk.bytes == piece.count)
            #expect(piece.count == min(1_000, bytes.count - received.count))
            received += piece
        }
        #expect(received == bytes)

        func refusal(_ projection: WorkerName, position: Int64, offset: Int64) -> String? {
            do {
                _ = try served.remote.snapshotChunk(of: projection, position: position, offset: offset)
                return nil
            } catch let refused as SnapshotChunk.Refused {
                return refused.code
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(.leaderboard, position: 0, offset: 0) == "not_found")
        #expect(refusal(.carts, position: 4, offset: 0) == "not_found")   // replaced by the copy at 5
        #expect(refusal(.carts, position: 5, offset: 3_501) == "bad_request")
    }

    /// The whole delivery path without a key file: the core publishes, a follower reading the log
    /// through the log service hands back every event in order, the sealed ones (which it never
    /// takes off the feed) opened by the service.
    @Test(.timeLimit(.minutes(2)))
    func aFollowerWithoutKeysGetsEveryEventWithAccountsOpened() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
        let keys = try UserKeyStore(path: directory.appendingPathComponent("keys.sqlite").path, readOnly: false)
        let processor = try CommandProcessor(store: store, keys: keys, logger: quiet)
        let context = try ZMQContext()
        let endpoints = BusEndpoints(dataDirectory: directory)
        let logServer = try LogServer(log: store, vault: keys, context: context, endpoint: endpoints.log, logger: quiet)
        let server = try CoreServer(processor: processor, context: context,
                                    configuration: .init(endpoints: endpoints), logger: quiet)
        // Started before the first suspension, and not waited for at the end: this test blocks its
        // thread, which may be the last of the pool the tasks would need.
        let servingLog = Task.immediate { try await logServer.run() }
        let serving = Task.immediate { try await server.run() }
        defer {
            serving.cancel()
            servingLog.cancel()
            context.shutdown()
        }
        let follower = try EventFeedFollower(context: context, endpoint: endpoints.events,
                                             log: RemoteEventStore(context: context, endpoint: endpoints.log), after: 0,
                                             types: [.userRegistered, .passwordChanged, .cartAdjusted], logger: quiet)
        // The subscription reaches the core before the events do: once the first heartbeat (every
        // 200 ms, on an empty log) has come, what the core publishes comes too.
        var feed = ZMQPoller()
        feed.register(follower.socket)
        try #require(try feed.poll(timeoutMilliseconds: 10_000).first?.contains(.readable) == true, "a heartbeat came")
        #expect(try follower.drain().isEmpty)
        let client = try CommandClient(context: context, endpoint: endpoints.commands)
        let script = (0..<3).flatMap { CoreServerTests.script(for: $0).map(\.0) }
            + [CommandEnvelope(commandId: "pw", command: .changePassword(ChangePassword(userId: "u1", passwordHash: CoreServerTests.hash)))]
        _ = try client.submit(script)
        let head = try store.headPosition()
        var delivered: [EventFeedFollower.Delivery] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while follower.position < head, ContinuousClock.now < deadline {
            // Woken by the next event or heartbeat.
            _ = try feed.poll(timeoutMilliseconds: 1_000)
            delivered += try follower.drain()
        }
        let expected = try store.read(after: 0, through: head, types: ["UserRegistered", "PasswordChanged", "CartAdjusted"])
        #expect(delivered.map(\.recorded.position) == expected.map(\.position))
        let events = try delivered.map { try $0.event ?? EventCoding.decode(
            type: $0.recorded.type, schemaVersion: $0.recorded.schemaVersion, data: $0.recorded.data, vault: nil) }
        #expect(events.contains(.userRegistered(UserRegistered(userId: "u2", username: "user_u2", email: "u2@example.org",
                                                               passwordHash: CoreServerTests.hash))))
        #expect(events.last == .passwordChanged(PasswordChanged(userId: "u1", passwordHash: CoreServerTests.hash)))
    }

    /// Reading alone, through the log service against the file: `swift test --filter LogServerTests`
    /// prints both rates (docs/benchmarks/hosts.md has them beside a whole worker's catch-up).
    @Test(.timeLimit(.minutes(2)))
    func readingThroughTheLogServiceIsTimedBesideTheFile() throws {
        let count = 50_000
        let served = try Served(limits: LogServer.Limits()) { store, _ in
            let metadata = EventMetadata(commandId: "c", correlationId: nil, causationId: nil, userId: "u1", recordedAt: 0)
            for batch in stride(from: 0, to: count, by: 5_000) {
                _ = try store.append([StreamAppend(streamId: "user-\(batch)", expectedVersion: 0, events: (0..<5_000).map { n in
                    NewEvent(type: "PointEarned", schemaVersion: 1,
                             data: Data(#"{"userId":"u1","recipeId":"catalog:r\#(batch + n)","ingredient":"salt"}"#.utf8), metadata: metadata)
                })])
            }
        }
        func rate(_ store: any EventLogReader) throws -> Double {
            let started = ContinuousClock.now
            var after: Int64 = 0
            while after < Int64(count) {
                after = try store.read(after: after, through: after + 10_000, types: ["PointEarned"]).last!.position
            }
            return Double(count) / ((ContinuousClock.now - started) / .seconds(1))
        }
        let local = try rate(served.store), remote = try rate(served.remote)
        print("reading \(count) events in batches of 10,000: file \(Int(local))/s, log service over ipc \(Int(remote))/s")
        #expect(remote > 0)
    }
}
