import Foundation
import Logging
import PantryThreads
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// Lets async code ask a worker (a projection worker, the fetch worker) or the core over ZeroMQ.
/// A thread of its own (`ServiceThread`) owns a DEALER socket; callers post their requests to it,
/// which wakes it only when it may be asleep, so a burst of requests costs one wake-up, not a
/// socket send each under a shared lock (that lock's contention was 4% of the API's CPU per
/// command). Every request carries a frame with its own id, which the peer echoes back, so answers
/// may come in any order (a worker parks queries that wait for a position) and still reach the
/// right caller. The callers waiting for answers are the socket thread's alone: no lock per answer.
///
/// `endpoint` may name several workers of one kind (separated by spaces or commas: one per worker
/// host). Requests then go round-robin to those connected, and only to them, so a worker host that
/// is down costs its requests in flight, not every later one; with none connected a request fails
/// at once rather than waiting out its timeout. `immediate` asks the same of a single worker: the
/// fetch worker stopped held every recipe screen for the whole 20 s timeout (issue 33).
///
/// A service: the socket thread starts in `run()`. Requests sent before it starts wait for it;
/// those sent after the group's graceful shutdown has stopped it fail at once.
package final class RequestConnection: Service {
    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
        /// No worker was connected to send to: the request was never sent.
        package var notConnected = false
    }

    /// A request on its way to the socket thread, with the caller waiting for its answer.
    private struct Request: Sendable {
        var id: UInt64
        var document: Data
        var caller: CheckedContinuation<Data, any Error>
        var deadline: ContinuousClock.Instant
    }

    private let context: ZMQContext
    private let endpoint: String
    private let timeout: Duration
    private let immediate: Bool
    private let thread: ServiceThread<Request>
    private let nextId = Atomic<UInt64>(1)
    private let logger: Logger

    /// `timeout` bounds every request; `immediate`: a request fails at once when no worker is
    /// connected, even with one endpoint (with several it always does).
    package init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(5), immediate: Bool = false,
                 logger: Logger) throws {
        self.context = context
        self.endpoint = endpoint
        self.timeout = timeout
        self.immediate = immediate
        self.logger = logger
        thread = try ServiceThread(name: "requests")
    }

    static func peers(_ endpoint: String) -> [String] {
        endpoint.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// Connects and serves the requests on the socket thread until the group shuts down gracefully
    /// or the context is shut down; then every caller still waiting is failed.
    package func run() async throws {
        try await thread.run { [self] thread in
            var waiting = Waiting(endpoint: endpoint)
            defer { waiting.failAll(also: thread.closeInbox(), "the connection to \(endpoint) closed") }
            let dealer = try ZMQSocket(context: context, type: .dealer)
            try dealer.setSendHighWaterMark(0)
            try dealer.setReceiveHighWaterMark(0)
            let peers = Self.peers(endpoint)
            if peers.count > 1 || immediate { try dealer.setImmediate(true) }
            for peer in peers { try dealer.connect(peer) }
            do {
                try waiting.serve(dealer: dealer, thread: thread)
            } catch let error as ZMQError where error.isTerminated {
                // The process is shutting down.
            } catch {
                logger.error("request connection stopped", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
                throw error
            }
        }
    }

    /// Sends one request document and returns the peer's answer document, failing after
    /// `timeout` (the connection's own by default).
    package func send(_ request: Data, timeout: Duration? = nil) async throws -> Data {
        let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = ContinuousClock.now + (timeout ?? self.timeout)
        return try await withCheckedThrowingContinuation { caller in
            guard thread.post(Request(id: id, document: request, caller: caller, deadline: deadline)) else {
                return caller.resume(throwing: Unavailable(description: "the connection to \(endpoint) is closed"))
            }
        }
    }

    /// The callers waiting for answers, by request id: the socket thread's own.
    private struct Waiting {
        private struct Waiter {
            var caller: CheckedContinuation<Data, any Error>
            var deadline: ContinuousClock.Instant
        }

        let endpoint: String
        private var byId: [UInt64: Waiter] = [:]
        /// No waiter's deadline is earlier: the thread looks for overdue waiters only from then.
        private var earliestDeadline: ContinuousClock.Instant?

        init(endpoint: String) {
            self.endpoint = endpoint
        }

        mutating func serve(dealer: ZMQSocket, thread: ServiceThread<Request>) throws {
            var poller = ZMQPoller()
            poller.register(fileDescriptor: thread.wakeDescriptor)
            poller.register(dealer)
            while !thread.isStopping {
                // Asleep until a request, an answer, the next deadline or the group's shutdown.
                let timeout = earliestDeadline.map { max(0, Int((($0 - .now) / .milliseconds(1)).rounded(.up))) } ?? -1
                let ready = try poller.poll(timeoutMilliseconds: timeout)
                if ready[0].contains(.readable) {
                    for request in thread.takeMessages() {
                        byId[request.id] = Waiter(caller: request.caller, deadline: request.deadline)
                        earliestDeadline = min(earliestDeadline ?? request.deadline, request.deadline)
                        // Only with ZMQ_IMMEDIATE may no peer be connected: then the send would block
                        // this thread, so the caller is told at once instead.
                        guard try dealer.send([Self.frame(request.id), request.document], dontWait: true) else {
                            byId.removeValue(forKey: request.id)?.caller.resume(
                                throwing: Unavailable(description: "no worker at \(endpoint) is connected", notConnected: true))
                            continue
                        }
                    }
                }
                if ready[1].contains(.readable) {
                    while let reply = try dealer.receive(dontWait: true) {
                        guard reply.count == 2, let id = Self.id(reply[0]), let waiter = byId.removeValue(forKey: id) else { continue }
                        waiter.caller.resume(returning: reply[1])
                    }
                }
                expireOverdue()
            }
        }

        private mutating func fail(_ id: UInt64, _ reason: String) {
            byId.removeValue(forKey: id)?.caller.resume(throwing: Unavailable(description: reason))
        }

        private mutating func expireOverdue() {
            let now = ContinuousClock.now
            guard let earliest = earliestDeadline, earliest <= now else { return }
            earliestDeadline = nil
            for (id, waiter) in byId {
                if waiter.deadline <= now {
                    byId.removeValue(forKey: id)
                    waiter.caller.resume(throwing: Unavailable(description: "\(endpoint) did not answer in time"))
                } else {
                    earliestDeadline = min(earliestDeadline ?? waiter.deadline, waiter.deadline)
                }
            }
        }

        /// As the thread ends: the waiters, and the requests posted but not taken.
        mutating func failAll(also untaken: [Request], _ reason: String) {
            for waiter in byId.values { waiter.caller.resume(throwing: Unavailable(description: reason)) }
            byId = [:]
            for request in untaken { request.caller.resume(throwing: Unavailable(description: reason)) }
        }

        static func frame(_ id: UInt64) -> Data { withUnsafeBytes(of: id.littleEndian) { Data($0) } }

        static func id(_ frame: Data) -> UInt64? {
            guard frame.count == 8 else { return nil }
            return frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
    }
}
