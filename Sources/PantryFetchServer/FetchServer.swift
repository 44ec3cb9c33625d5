import Foundation
import Logging
import PantryFetch
import Synchronization
import ZeroMQ
import PantryWire

/// The fetch worker's ZeroMQ side: requests (`FetchRequest` JSON) arrive on a ROUTER socket and
/// are answered with `FetchResult` JSON. Requests run concurrently on the `FetchService` actor, so a
/// slow upstream call never holds up a cache hit; each finished answer comes back to the socket's
/// thread over an inproc pipe, because only that thread may touch the ROUTER socket.
package final class FetchServer {
    private let service: FetchService
    private let requests: ZMQSocket
    private let answers: ZMQSocket
    private let answerSender: AnswerSender
    private let logger: Logger

    package init(service: FetchService, context: ZMQContext, endpoint: String, logger: Logger) throws {
        self.service = service
        self.logger = logger
        requests = try ZMQSocket(context: context, type: .router)
        try requests.setMaxMessageSize(64 << 10)
        try requests.setSendHighWaterMark(1_000_000)
        if endpoint.hasPrefix("ipc://") {
            try? FileManager.default.removeItem(atPath: String(endpoint.dropFirst("ipc://".count)))
        }
        try requests.bind(endpoint)
        let pipe = "inproc://fetch-answers-\(UUID().uuidString)"
        answers = try ZMQSocket(context: context, type: .pull)
        try answers.setReceiveHighWaterMark(0)
        try answers.bind(pipe)
        answerSender = try AnswerSender(context: context, endpoint: pipe)
    }

    /// Serves until the context is shut down.
    package func run() throws {
        var poller = ZMQPoller()
        poller.register(requests)
        poller.register(answers)
        logger.info("fetch serving")
        do {
            while true {
                let ready = try poller.poll(timeoutMilliseconds: -1)
                if ready[0].contains(.readable) { try receiveRequests() }
                if ready[1].contains(.readable) {
                    while let answer = try answers.receive(dontWait: true) {
                        _ = try? requests.send(answer, dontWait: true)
                    }
                }
            }
        } catch let error as ZMQError where error.isTerminated {
            logger.info("fetch stopped")
        }
    }

    /// A request whose answer is remembered (`FetchService.memoizedAnswer`) is answered here, on
    /// the socket's thread: a task and the hop back through the pipe cost more than the answer.
    private func receiveRequests() throws {
        while let frames = try requests.receive(dontWait: true) {
            guard frames.count >= 2 else { continue }
            let route = Array(frames.dropLast())
            let received: FetchRequest.Received
            do throws(FetchError) {
                received = try FetchRequest.received(json: frames[frames.count - 1])
            } catch {
                logger.debug("request refused", metadata: ["error": "\(error)"])
                // FetchResult is made of strings, numbers and bytes: encoding cannot fail.
                _ = try? requests.send(route + [try! JSONEncoder().encode(FetchResult.failure(error))], dontWait: true)
                continue
            }
            if let answer = service.memoizedAnswer(received.request) {
                _ = try? requests.send(route + [answer], dontWait: true)
                continue
            }
            let service = self.service
            let sender = answerSender
            Task {
                sender.send(route + [await service.encodedAnswer(received.request, client: received.client, deadline: received.deadline)])
            }
        }
    }
}

/// The PUSH end of the answer pipe, shared by the request tasks. A ZeroMQ socket may move between
/// threads when a lock orders every use of it, which is what this is.
final class AnswerSender: Sendable {
    private let socket: Mutex<ZMQSocket>

    init(context: ZMQContext, endpoint: String) throws {
        let push = try ZMQSocket(context: context, type: .push)
        try push.setSendHighWaterMark(0)
        try push.connect(endpoint)
        socket = Mutex(push)
    }

    func send(_ frames: [Data]) {
        socket.withLock { socket in _ = try? socket.send(frames) }
    }
}
