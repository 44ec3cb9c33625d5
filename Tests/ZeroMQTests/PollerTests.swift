import Foundation
import Testing
import ZeroMQ

@Suite struct PollerTests {
    @Test func pollOnIdleSocketWaitsForTheTimeoutAndReportsNothing() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull)
        try pull.bind("tcp://127.0.0.1:*")
        var poller = ZMQPoller()
        poller.register(pull, for: .readable)

        let clock = ContinuousClock()
        var ready: [ZMQPollEvents] = []
        let elapsed = try clock.measure { ready = try poller.poll(timeoutMilliseconds: 100) }

        #expect(ready == [[]])
        #expect(elapsed >= .milliseconds(90))
    }

    @Test func pollReportsReadableSocketsInRegistrationOrder() throws {
        let context = try ZMQContext()
        let (pull, push) = try connectedPair(context, server: .pull, client: .push)
        var poller = ZMQPoller()
        poller.register(push, for: .readable)
        poller.register(pull, for: .readable)
        #expect(try poller.poll(timeoutMilliseconds: 0) == [[], []])

        try push.send(frames("wake up"))

        #expect(try poller.poll(timeoutMilliseconds: testTimeoutMilliseconds) == [[], .readable])
        #expect(try pull.receive(dontWait: true) == frames("wake up"))
    }

    /// A plain file descriptor (the pipe another thread wakes a socket thread with) polls beside sockets.
    @Test func pollReportsAReadableFileDescriptorBesideSockets() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull)
        try pull.bind("tcp://127.0.0.1:*")
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var poller = ZMQPoller()
        poller.register(pull)
        poller.register(fileDescriptor: ends[0])
        #expect(try poller.poll(timeoutMilliseconds: 0) == [[], []])
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(try poller.poll(timeoutMilliseconds: testTimeoutMilliseconds) == [[], .readable])
    }

    @Test func pollReportsWritableOnlyWhileAPeerCanTakeMessages() throws {
        let context = try ZMQContext()
        let push = try makeSocket(context, .push)
        try push.bind("tcp://127.0.0.1:*")
        var poller = ZMQPoller()
        poller.register(push, for: [.readable, .writable])
        #expect(try poller.poll(timeoutMilliseconds: 0) == [[]])

        let pull = try makeSocket(context, .pull)
        try pull.connect(push.lastEndpoint)

        #expect(try poller.poll(timeoutMilliseconds: testTimeoutMilliseconds) == [.writable])
    }

    @Test func pollRejectsClosedSockets() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull)
        var poller = ZMQPoller()
        poller.register(pull)
        pull.close()

        let error = #expect(throws: ZMQError.self) { try poller.poll(timeoutMilliseconds: 0) }
        #expect(error?.code == ENOTSOCK)
    }
}
