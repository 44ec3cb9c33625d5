import Foundation
import Logging
import Synchronization
import ZeroMQ

/// Lets async code ask a worker (a projection worker, the fetch worker) or the core over ZeroMQ.
/// One thread owns a DEALER socket; callers queue requests in memory and wake the thread through
/// a pipe only when it may be asleep, so a burst of requests costs one wake-up, not a socket send
/// each under a shared lock (that lock's contention was 4% of the API's CPU per command). Every
/// request carries a frame with its own id, which the peer echoes back, so answers may come in any
/// order (a worker parks queries that wait for a position) and still reach the right caller.
///
/// `endpoint` may name several workers of one kind (separated by spaces or commas: one per worker
/// host). Requests then go round-robin to those connected, and only to them, so a worker host that
/// is down costs its requests in flight, not every later one; with none connected a request fails
/// at once rather than waiting out its timeout.
package final class RequestConnection: Sendable {
    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
    }

    private let endpoint: String
    private let timeout: Duration
    private let waiting: Waiting
    private let nextId = Atomic<UInt64>(1)

    /// Starts the socket thread. `timeout` bounds every request.
    package init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(5), logger: Logger) throws {
        self.endpoint = endpoint
        self.timeout = timeout
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Unavailable(description: "no pipe for the connection to \(endpoint): errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK); _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let waiting = Waiting(endpoint: endpoint, wakeReader: ends[0], wakeWriter: ends[1])
        self.waiting = waiting
        // The socket thread creates and owns its socket.
        let started = DispatchSemaphore(value: 0)
        let startError = Mutex<(any Error)?>(nil)
        let thread = Thread {
            let dealer: ZMQSocket
            do {
                dealer = try ZMQSocket(context: context, type: .dealer)
                try dealer.setSendHighWaterMark(0)
                try dealer.setReceiveHighWaterMark(0)
                let peers = Self.peers(endpoint)
                if peers.count > 1 { try dealer.setImmediate(true) }
                for peer in peers { try dealer.connect(peer) }
            } catch {
                startError.withLock { $0 = error }
                started.signal()
                return
            }
            started.signal()
            do {
                try waiting.serve(dealer: dealer)
            } catch let error as ZMQError where error.isTerminated {
                // The process is shutting down.
            } catch {
                logger.error("request connection stopped", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
            }
            waiting.failAll()
        }
        thread.name = "requests"
        thread.start()
        started.wait()
        if let error = startError.withLock({ $0 }) { throw error }
    }

    static func peers(_ endpoint: String) -> [String] {
        endpoint.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// Sends one request document and returns the peer's answer document, failing after
    /// `timeout` (the connection's own by default).
    package func send(_ request: Data, timeout: Duration? = nil) async throws -> Data {
        let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = ContinuousClock.now + (timeout ?? self.timeout)
        return try await withCheckedThrowingContinuation { continuation in
            waiting.add(id, request, continuation, deadline: deadline)
        }
    }
}

/// The requests not yet sent and the callers waiting for answers, shared by `send` and the
/// socket thread.
private final class Waiting: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Data, any Error>
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var open = true
        var byId: [UInt64: Waiter] = [:]
        var unsent: [(id: UInt64, request: Data)] = []
        /// The pipe was written to since the thread last emptied `unsent`: it will look again.
        var woken = false
        /// No waiter's deadline is earlier: the thread scans for overdue waiters only from then.
        var earliestDeadline = ContinuousClock.Instant.now + State.horizon
        /// Further ahead than any request's deadline: "no waiter is due before then".
        static let horizon: Duration = .seconds(3600)
    }

    private let endpoint: String
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let state = Mutex(State())

    init(endpoint: String, wakeReader: Int32, wakeWriter: Int32) {
        self.endpoint = endpoint
        self.wakeReader = wakeReader
        self.wakeWriter = wakeWriter
    }

    /// Only once nobody can queue a request any more: a request queued after a close would write
    /// to whatever file reused the number.
    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    /// Queues the request; the caller is failed at once if the connection has closed.
    func add(_ id: UInt64, _ request: Data, _ continuation: CheckedContinuation<Data, any Error>,
             deadline: ContinuousClock.Instant) {
        let (open, mustWake) = state.withLock { state -> (Bool, Bool) in
            guard state.open else { return (false, false) }
            state.byId[id] = Waiter(continuation: continuation, deadline: deadline)
            state.unsent.append((id, request))
            state.earliestDeadline = min(state.earliestDeadline, deadline)
            defer { state.woken = true }
            return (true, !state.woken)
        }
        guard open else {
            continuation.resume(throwing: RequestConnection.Unavailable(description: "the connection to \(endpoint) is closed"))
            return
        }
        if mustWake {
            var byte: UInt8 = 1
            _ = write(wakeWriter, &byte, 1)
        }
    }

    func fail(_ id: UInt64, _ reason: String) {
        state.withLock { $0.byId.removeValue(forKey: id) }?.continuation
            .resume(throwing: RequestConnection.Unavailable(description: reason))
    }

    func serve(dealer: ZMQSocket) throws {
        var poller = ZMQPoller()
        poller.register(fileDescriptor: wakeReader)
        poller.register(dealer)
        while true {
            let ready = try poller.poll(timeoutMilliseconds: 50)
            if ready[0].contains(.readable) {
                // Empty the pipe before taking the queue: a request queued after the take writes to it again.
                var bytes = [UInt8](repeating: 0, count: 64)
                while read(wakeReader, &bytes, bytes.count) == bytes.count {}
                let unsent = state.withLock { state in
                    state.woken = false
                    defer { state.unsent.removeAll(keepingCapacity: true) }
                    return state.unsent
                }
                for (id, request) in unsent {
                    // Only with several workers may no peer be connected (ZMQ_IMMEDIATE): then
                    // the send would block this thread, so the caller is told at once instead.
                    guard try dealer.send([Self.frame(id), request], dontWait: true) else {
                        fail(id, "no worker at \(endpoint) is connected")
                        continue
                    }
                }
            }
            if ready[1].contains(.readable) {
                while let reply = try dealer.receive(dontWait: true) {
                    guard reply.count == 2, let id = Self.id(reply[0]),
                          let waiter = state.withLock({ $0.byId.removeValue(forKey: id) }) else { continue }
                    waiter.continuation.resume(returning: reply[1])
                }
            }
            expireOverdue()
        }
    }

    private func expireOverdue() {
        let now = ContinuousClock.now
        let overdue = state.withLock { state -> [Waiter] in
            guard state.earliestDeadline <= now else { return [] }
            var overdue: [Waiter] = []
            var earliest = now + State.horizon
            for (id, waiter) in state.byId {
                if waiter.deadline <= now {
                    overdue.append(waiter)
                    state.byId.removeValue(forKey: id)
                } else {
                    earliest = min(earliest, waiter.deadline)
                }
            }
            state.earliestDeadline = earliest
            return overdue
        }
        for waiter in overdue {
            waiter.continuation.resume(throwing: RequestConnection.Unavailable(description: "\(endpoint) did not answer in time"))
        }
    }

    func failAll() {
        let left = state.withLock { state in
            state.open = false
            defer { state.byId = [:]; state.unsent = [] }
            return Array(state.byId.values)
        }
        for waiter in left {
            waiter.continuation.resume(throwing: RequestConnection.Unavailable(description: "the connection to \(endpoint) closed"))
        }
    }

    static func frame(_ id: UInt64) -> Data { withUnsafeBytes(of: id.littleEndian) { Data($0) } }

    static func id(_ frame: Data) -> UInt64? {
        guard frame.count == 8 else { return nil }
        return frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }
}
