import Foundation
import Testing
import ZeroMQ

@Suite struct MessageTests {
    @Test(arguments: ["tcp", "ipc"])
    func multipartMessagesRoundTrip(transport: String) throws {
        try withTemporaryDirectory { directory in
            let endpoint = transport == "tcp" ? "tcp://127.0.0.1:*" : "ipc://\(directory.path)/round-trip"
            let context = try ZMQContext()
            let (pull, push) = try connectedPair(context, server: .pull, client: .push, endpoint: endpoint)
            let message = [
                Data("header".utf8),
                Data(#"{"item":"flour","grams":500}"#.utf8),
                Data([0, 1, 0, 255]),
                Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0) }),
            ]

            #expect(try push.send(message))
            #expect(try pull.receive() == message)
        }
    }

    @Test func emptyFramesRoundTrip() throws {
        let context = try ZMQContext()
        let (pull, push) = try connectedPair(context, server: .pull, client: .push)

        try push.send([Data()])
        try push.send([Data(), Data("middle".utf8), Data()])

        #expect(try pull.receive() == [Data()])
        #expect(try pull.receive() == [Data(), Data("middle".utf8), Data()])
    }

    @Test func receiveReturnsNilWhenNothingArrives() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull)
        try pull.bind("tcp://127.0.0.1:*")
        try pull.setReceiveTimeout(milliseconds: 100)

        #expect(try pull.receive(dontWait: true) == nil)
        let clock = ContinuousClock()
        var received: [Data]?
        let elapsed = try clock.measure { received = try pull.receive() }
        #expect(received == nil)
        #expect(elapsed >= .milliseconds(90))
    }

    @Test func sendReturnsFalseWhenNoPeerCanTakeTheMessage() throws {
        let context = try ZMQContext()
        let push = try makeSocket(context, .push)
        try push.bind("tcp://127.0.0.1:*")
        try push.setSendTimeout(milliseconds: 50)

        #expect(try push.send(frames("unsent"), dontWait: true) == false)
        #expect(try push.send(frames("unsent")) == false)
    }
}
