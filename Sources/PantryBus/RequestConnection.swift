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
/// With `batching` (the core's commands), the requests the socket thread finds waiting when it
/// wakes go as one frame (`Batching.join`) under the first one's id, and the peer's one answer is
/// split back into each caller's (`Batching.split`): the crossing is paid once per batch.
///
/// A service: the socket thread starts in `run()`. Requests sent before it starts wait for it;
/// those sent after the group's graceful shutdown has stopped it fail at once.
package final class RequestConnection: Service {
    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
        /// No worker was connected to send to: the request was never sent.
        package var notConnected = false
    }

    /// How several waiting requests travel as one frame and their answers come back as one.
    package struct Batching: Sendable {
        /// The waiting request documents cut, in order, into the runs that may each go as one
        /// frame (the peer's bounds on a frame's requests and bytes).
        package var runs: @Sendable ([Data]) -> [Range<Int>]
        /// One frame from several request documents.
        package var join: @Sendable ([Data]) -> Data
        /// The answer documents of a batch's answer, in order; nil when it is not one.
        package var split: @Sendable (Data) -> [Data]?

        package init(runs: @escaping @Sendable ([Data]) -> [Range<Int>], join: @escaping @Sendable ([Data]) -> Data,
                     split: @escaping @Sendable (Data) -> [Data]?) {
            self.runs = runs
            self.join = join
            self.split = split
        }
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
    private let batching: Batching?
    private let logger: Logger

    /// `timeout` bounds every request; `immediate`: a request fails at once when no worker is
    /// connected, even with one endpoint (with several it always does).
    package init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(5), immediate: Bool = false,
                 batching: Batching? = nil,
                 logger: Logger) throws {
        self.context = context
        self.endpoint = endpoint
        self.timeout = timeout
        self.immediate = immediate
        self.batching = batching
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
            var waiting = Waiting(endpoint: endpoint, batching: batching)
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
        let batching: Batching?
        private var byId: [UInt64: Waiter] = [:]
        /// The requests of each batch frame in flight, by the frame's id (its first request's).
        private var batches: [UInt64: [UInt64]] = [:]
        /// No waiter's deadline is earlier: the thread looks for overdue waiters only from then.
        private var earliestDeadline: ContinuousClock.Instant?

        init(endpoint: String, batching: Batching?) {
            self.endpoint = endpoint
            self.batching = batching
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
                    let requests = thread.takeMessages()
                    for request in requests {
                        byId[request.id] = Waiter(caller: request.caller, deadline: request.deadline)
                        earliestDeadline = min(earliestDeadline ?? request.deadline, request.deadline)
                    }
                    if let batching, requests.count > 1 {
                        for run in batching.runs(requests.map(\.document)) {
                            let batch = requests[run]
                            let ids = batch.map(\.id)
                            batches[ids[0]] = ids
                            guard try dealer.send([Self.frame(ids[0]), batching.join(batch.map(\.document))], dontWait: true) else {
                                batches[ids[0]] = nil
                                for id in ids { fail(id, "no worker at \(endpoint) is connected", notConnected: true) }
                                continue
                            }
                        }
                    } else {
                        for request in requests {
                            // Only with ZMQ_IMMEDIATE may no peer be connected: then the send would block
                            // this thread, so the caller is told at once instead.
                            guard try dealer.send([Self.frame(request.id), request.document], dontWait: true) else {
                                fail(request.id, "no worker at \(endpoint) is connected", notConnected: true)
                                continue
                            }
                        }
                    }
                }
                if ready[1].contains(.readable) {
                    while let reply = try dealer.receive(dontWait: true) {
                        guard reply.count == 2, let id = Self.id(reply[0]) else { continue }
                        if let members = batches.removeValue(forKey: id) {
                            answer(batch: members, with: reply[1])
                        } else if let waiter = byId.removeValue(forKey: id) {
                            waiter.caller.resume(returning: reply[1])
                        }
                    }
                }
                expireOverdue()
            }
        }

        /// Each request of a batch frame its own answer; all of them fail when the answer is not
        /// one per request (a batch frame the peer refused as a whole).
        private mutating func answer(batch members: [UInt64], with frame: Data) {
            guard let answers = batching?.split(frame), answers.count == members.count else {
                for id in members { fail(id, "\(endpoint) did not answer the batch of \(members.count) requests with as many answers") }
                return
            }
            for (id, answer) in zip(members, answers) { byId.removeValue(forKey: id)?.caller.resume(returning: answer) }
        }

        private mutating func fail(_ id: UInt64, _ reason: String, notConnected: Bool = false) {
            byId.removeValue(forKey: id)?.caller.resume(throwing: Unavailable(description: reason, notConnected: notConnected))
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
            // A batch whose every request gave up waits for no answer any more.
            batches = batches.filter { $0.value.contains { byId[$0] != nil } }
        }

        /// As the thread ends: the waiters, and the requests posted but not taken.
        mutating func failAll(also untaken: [Request], _ reason: String) {
            for waiter in byId.values { waiter.caller.resume(throwing: Unavailable(description: reason)) }
            byId = [:]
            batches = [:]
            for request in untaken { request.caller.resume(throwing: Unavailable(description: reason)) }
        }

        static func frame(_ id: UInt64) -> Data { withUnsafeBytes(of: id.littleEndian) { Data($0) } }

        static func id(_ frame: Data) -> UInt64? {
            guard frame.count == 8 else { return nil }
            return frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
    }
}
