import Foundation
import Testing
import ZeroMQ

@Suite struct RoutingTests {
    @Test func routerRepliesReachTheDealerNamedByTheFirstFrame() throws {
        let context = try ZMQContext()
        let router = try makeSocket(context, .router)
        try router.bind("tcp://127.0.0.1:*")
        var dealers: [String: ZMQSocket] = [:]
        for name in ["alice", "bob"] {
            let dealer = try makeSocket(context, .dealer)
            try dealer.setRoutingID(Data(name.utf8))
            try dealer.connect(router.lastEndpoint)
            try dealer.send([Data(), Data("from \(name)".utf8)])
            dealers[name] = dealer
        }

        for _ in 0..<2 {
            let request = try #require(try router.receive())
            try #require(request.count == 3)
            let name = String(decoding: request[0], as: UTF8.self)
            #expect(request[1].isEmpty)
            #expect(request[2] == Data("from \(name)".utf8))
            try router.send([request[0], Data(), Data("for \(name)".utf8)])
        }

        #expect(try dealers["alice"]?.receive() == [Data(), Data("for alice".utf8)])
        #expect(try dealers["bob"]?.receive() == [Data(), Data("for bob".utf8)])
    }

    @Test func reqSocketsAddAndStripTheEmptyDelimiter() throws {
        let context = try ZMQContext()
        let (router, req) = try connectedPair(context, server: .router, client: .req)

        try req.send(frames("ping"))
        let request = try #require(try router.receive())
        try #require(request.count == 3)
        #expect(!request[0].isEmpty)
        #expect(request[1].isEmpty)
        #expect(request[2] == Data("ping".utf8))

        try router.send([request[0], Data(), Data("pong".utf8)])
        #expect(try req.receive() == frames("pong"))
    }

    @Test func mandatoryRouterRejectsUnknownPeers() throws {
        let context = try ZMQContext()
        let router = try makeSocket(context, .router)
        try router.setRouterMandatory(true)
        try router.bind("tcp://127.0.0.1:*")

        let error = #expect(throws: ZMQError.self) {
            try router.send(frames("nobody", "hello"))
        }
        #expect(error?.code == EHOSTUNREACH)
    }

    @Test func subscriberReceivesOnlyMatchingPrefixes() throws {
        let context = try ZMQContext()
        let (publisher, subscriber) = try connectedPair(context, server: .pub, client: .sub)
        try subscriber.subscribe("weather.")
        try subscriber.setReceiveTimeout(milliseconds: 20)

        // The subscription reaches the publisher asynchronously (the slow joiner), and until it
        // does everything published is dropped, so keep publishing until something arrives.
        var received: [[Data]] = []
        for _ in 0..<100 where received.isEmpty {
            try publisher.send(frames("sports.derby", "1-0"))
            try publisher.send(frames("weather.oslo", "rain"))
            while let message = try subscriber.receive() {
                received.append(message)
            }
        }

        #expect(!received.isEmpty)
        #expect(received.allSatisfy { $0 == frames("weather.oslo", "rain") })
    }
}
