import Foundation
import PantryTestSupport
import Testing
import ZeroMQ

@Suite struct LifecycleTests {
    @Test func shutdownUnblocksAReceiveInAnotherThread() async throws {
        let context = try ZMQContext()
        let outcome = ThreadResult<Result<[Data]?, any Error>>()
        let receiving = DispatchSemaphore(value: 0)
        let receiver = ThreadResult<String?>()
        Thread {
            receiver.set(Self.threadStatPath())
            outcome.set(Result {
                let pull = try ZMQSocket(context: context, type: .pull)
                defer { pull.close() }
                try pull.bind("tcp://127.0.0.1:*")
                receiving.signal()
                return try pull.receive()
            })
        }.start()

        #expect(receiving.wait(timeout: .now() + .seconds(2)) == .success)
        // Shutdown works either way, but the case to prove is a thread blocked inside
        // zmq_msg_recv: the kernel has it asleep then, and nothing else it does after `receiving`
        // sleeps. The kernel tells no one, so its state is looked at until then.
        if let stat = receiver.wait(timeout: .seconds(2)) ?? nil {
            #expect(try await waitUntil { Self.isAsleep(stat) }, "the receiving thread blocks")
        }
        context.shutdown()

        let result = outcome.wait(timeout: .seconds(2))
        guard case .failure(let error as ZMQError) = result else {
            Issue.record("expected ETERM, got \(String(describing: result))")
            return
        }
        #expect(error.isTerminated)
        #expect(error == .terminated(operation: "zmq_msg_recv"))
    }

    /// The calling thread's /proc stat file, nil where there is no /proc.
    static func threadStatPath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).map { "/proc/\($0)/stat" }
    }

    /// Whether the thread of `stat` is asleep ("S"): its state follows its name, which ends at the last ")".
    static func isAsleep(_ stat: String) -> Bool {
        guard let text = try? String(contentsOfFile: stat, encoding: .utf8), let end = text.lastIndex(of: ")") else { return false }
        return text[text.index(after: end)...].drop(while: { $0 == " " }).first == "S"
    }

    @Test func closingWithPendingMessagesDoesNotHang() throws {
        let queuedCount = ThreadResult<Result<Int, any Error>>()
        // Runs on its own thread so a hang in zmq_ctx_term fails the test instead of stalling it.
        Thread {
            queuedCount.set(Result {
                var queued = 0
                do {
                    let context = try ZMQContext()
                    let push = try ZMQSocket(context: context, type: .push)
                    try push.connect("tcp://127.0.0.1:1")  // nobody listens; messages stay queued
                    for _ in 0..<10 where try push.send(frames("stuck"), dontWait: true) {
                        queued += 1
                    }
                    push.close()
                }  // releasing the last reference terminates the context
                return queued
            })
        }.start()

        let result = queuedCount.wait(timeout: .seconds(5))
        #expect(result != nil, "closing the socket or terminating the context hung")
        if case .failure(let error) = result { Issue.record(error) }
        if case .success(let queued) = result { #expect(queued == 10) }
    }

    @Test func newSocketsDoNotLinger() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, type: .dealer)
        #expect(try socket.linger == 0)
        try socket.setLinger(milliseconds: 250)
        #expect(try socket.linger == 250)
    }

    @Test func oversizedMessageIsDroppedAndItsSenderDisconnected() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull)
        try pull.setMaxMessageSize(1_000)
        try pull.bind("tcp://127.0.0.1:*")
        let push = try makeSocket(context, .push)
        try push.connect(pull.lastEndpoint)

        try push.send([Data(count: 1_000)])
        #expect(try pull.receive() == [Data(count: 1_000)])

        try pull.setReceiveTimeout(milliseconds: 300)
        try push.send([Data(count: 1_001)])
        #expect(try pull.receive() == nil)

        // The PUSH side reconnects after being dropped, so traffic within the limit resumes.
        try pull.setReceiveTimeout(milliseconds: testTimeoutMilliseconds)
        try push.send(frames("after"))
        #expect(try pull.receive() == frames("after"))
    }

    @Test func bindingAnInvalidEndpointThrowsAClearError() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, type: .rep)

        let unknownTransport = #expect(throws: ZMQError.self) { try socket.bind("bogus://nowhere") }
        #expect(unknownTransport?.code == EPROTONOSUPPORT)
        #expect(unknownTransport?.description.contains("zmq_bind(bogus://nowhere)") == true)
        #expect(unknownTransport?.description.contains("Protocol not supported") == true)

        let missingPort = #expect(throws: ZMQError.self) { try socket.bind("tcp://127.0.0.1") }
        #expect(missingPort?.code == EINVAL)
    }

    @Test func closedSocketsRejectCallsAndCloseTwiceSafely() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, type: .push)
        socket.close()
        socket.close()

        #expect(socket.isClosed)
        let error = #expect(throws: ZMQError.self) { try socket.send(frames("late")) }
        #expect(error?.code == ENOTSOCK)
    }
}
