import Foundation
import Logging
import PantryBus
import PantryEventStore
import PantryLog
import PantryWire
import Testing
import ZeroMQ

/// `EventFeedFollower` fed by a PUB socket this test drives, in front of a real log file: what it
/// reads from the log, and what it leaves to the feed.
@Suite struct EventFeedFollowerTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-follower-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func event(_ type: String, _ json: String) -> NewEvent {
        NewEvent(type: type, schemaVersion: 1, data: Data(json.utf8), metadata: EventMetadata(
            commandId: "c-\(UUID().uuidString)", correlationId: nil, causationId: nil, userId: "u1", recordedAt: 0))
    }

    /// Seen once in CI as "15 events read from the log, no gap": a heartbeat announced a head the
    /// follower's types had nothing up to, while the core had already committed the next batch,
    /// whose message was still on its way. Reading up to the log's head took that batch from the
    /// log; reading up to the announced head leaves it to the feed.
    @Test(.timeLimit(.minutes(1)))
    func aHeartbeatMakesTheFollowerReadTheLogOnlyUpToTheAnnouncedHead() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
        let point = event("PointEarned", #"{"userId":"u1","recipeId":"r1","ingredient":"salt"}"#)
        let cart = event("CartAdjusted", #"{"userId":"u1","recipeId":"r1","title":"Soup","image":null,"delta":1,"count":1}"#)
        _ = try store.append([StreamAppend(streamId: "user-u1", expectedVersion: 0, events: [point])])
        _ = try store.append([StreamAppend(streamId: "user-u1", expectedVersion: 1, events: [cart])])

        let context = try ZMQContext()
        defer { context.shutdown() }
        let endpoint = "ipc://\(directory.path)/events.ipc"
        let feed = try ZMQSocket(context: context, type: .pub)
        defer { feed.close() }
        try feed.bind(endpoint)
        let follower = try EventFeedFollower(context: context, endpoint: endpoint, log: store, after: 0,
                                             types: [.cartAdjusted], logger: quiet)
        defer { follower.socket.close() }
        var poller = ZMQPoller()
        poller.register(follower.socket)
        // The subscription reaches the PUB socket some time after the connect: heartbeats until one
        // arrives. Position 1 (a point, not of the follower's types) is the announced head.
        var delivered: [EventFeedFollower.Delivery] = []
        repeat {
            try feed.send(FeedMessage.heartbeatFrames(head: 1))
        } while try poller.poll(timeoutMilliseconds: 50).first?.contains(.readable) != true
        delivered += try follower.drain()
        #expect(delivered.isEmpty)
        #expect(follower.position == 1)
        #expect(follower.eventsReadFromLog == 0, "the cart event at 2, past the announced head, is left to the feed")

        let logged = try store.read(after: 1, limit: 10)
        try feed.send(FeedMessage.messages(for: logged)[0])
        #expect(try poller.poll(timeoutMilliseconds: 5_000).first?.contains(.readable) == true)
        delivered += try follower.drain()
        #expect(delivered.map(\.recorded.position) == [2])
        #expect(delivered.first?.event != nil, "decoded off the feed, not read from the log")
        #expect(follower.eventsReadFromLog == 0)
        #expect(follower.gapsHealed == 0)
    }
}
