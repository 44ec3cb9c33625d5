import Foundation
import Logging
import PantryFetch
import PantryThreads
import ServiceLifecycle
import ZeroMQ
import PantryWire

/// The fetch worker's ZeroMQ side: requests (`FetchRequest` JSON) arrive on a ROUTER socket and
/// are answered with `FetchResult` JSON. Requests run concurrently on the `FetchService` actor, so a
/// slow upstream call never holds up a cache hit; each finished answer is posted back to the
/// socket's thread (`ServiceThread`), because only that thread may touch the ROUTER socket.
package final class FetchServer: Service {
    private let service: FetchService
    private let context: ZMQContext
    private let endpoint: String
    /// The socket's thread; its messages are the answers to send, route frames first.
    private let thread: ServiceThread<[Data]>
    private let logger: Logger

    package init(service: FetchService, context: ZMQContext, endpoint: String, logger: Logger) throws {
        self.service = service
        self.context = context
        self.endpoint = endpoint
        self.logger = logger
        thread = try ServiceThread(name: "fetch")
    }

    /// Binds the socket and serves on its thread until the group shuts down gracefully or the
    /// context is shut down.
    package func run() async throws {
        try await thread.run { [self] thread in
            let requests = try ZMQSocket(context: context, type: .router)
            try requests.setMaxMessageSize(64 << 10)
            try requests.setSendHighWaterMark(1_000_000)
            try requests.bindReplacingStaleFile(endpoint)
            var poller = ZMQPoller()
            poller.register(requests)
            poller.register(fileDescriptor: thread.wakeDescriptor)
            logger.info("fetch serving")
            do {
                while !thread.isStopping {
                    let ready = try poller.poll(timeoutMilliseconds: -1)
                    if ready[0].contains(.readable) { try receiveRequests(requests) }
                    if ready[1].contains(.readable) {
                        for answer in thread.takeMessages() { _ = try? requests.send(answer, dontWait: true) }
                    }
                }
            } catch let error as ZMQError where error.isTerminated {}
            logger.info("fetch stopped")
        }
    }

    /// A request whose answer is remembered (`FetchService.memoizedAnswer`) is answered here, on
    /// the socket's thread: a task and the hop back to this thread cost more than the answer.
    private func receiveRequests(_ requests: ZMQSocket) throws {
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
            let thread = self.thread
            let arrived = ContinuousClock.now
            Task {
                thread.post(route + [await service.encodedAnswer(received.request, client: received.client, deadline: received.deadline,
                                                                 arrived: arrived)])
            }
        }
    }
}
