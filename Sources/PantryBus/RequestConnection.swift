import Foundation
import Logging
import Synchronization
import ZeroMQ

/// Lets async code ask a worker (a projection worker, the fetch worker) over ZeroMQ. One thread
/// owns a DEALER socket; callers hand it requests through an inproc pipe. Every request carries a
/// frame with its own id, which the worker echoes back, so answers may come in any order (a
/// worker parks queries that wait for a position) and still reach the right caller.
///
/// `endpoint` may name several workers of one kind (separated by spaces or commas: one per worker
/// host). Requests then go round-robin to those connected, and only to them, so a worker host that
/// is down costs its requests in flight, not every later one; with none connected a request fails
/// at once rather than waiting out its timeout.
public final class RequestConnection: Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    private let endpoint: String
    private let timeout: Duration
    private let inbox: Mutex<ZMQSocket>
    private let waiting: Waiting
    private let nextId = Atomic<UInt64>(1)

    /// Starts the socket thread. `timeout` bounds every request.
    public init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(5), logger: Logger) throws {
        self.endpoint = endpoint
        self.timeout = timeout
        let waiting = Waiting(endpoint: endpoint)
        self.waiting = waiting
        let pipe = "inproc://requests-\(UUID().uuidString)"
        // The socket thread creates and owns its sockets; the pipe is bound before callers connect.
        let started = DispatchSemaphore(value: 0)
        let startError = Mutex<(any Error)?>(nil)
        let thread = Thread {
            let outbox: ZMQSocket, dealer: ZMQSocket
            do {
                outbox = try ZMQSocket(context: context, type: .pull)
                try outbox.setReceiveHighWaterMark(0)
                try outbox.bind(pipe)
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
                try waiting.serve(outbox: outbox, dealer: dealer)
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
        let push = try ZMQSocket(context: context, type: .push)
        try push.setSendHighWaterMark(0)
        try push.connect(pipe)
        inbox = Mutex(push)
    }

    static func peers(_ endpoint: String) -> [String] {
        endpoint.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// Sends one request document and returns the worker's answer document, failing after
    /// `timeout` (the connection's own by default).
    public func send(_ request: Data, timeout: Duration? = nil) async throws -> Data {
        let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = ContinuousClock.now + (timeout ?? self.timeout)
        return try await withCheckedThrowingContinuation { continuation in
            guard waiting.add(id, continuation, deadline: deadline) else { return }
            let sent = inbox.withLock { socket in (try? socket.send([Waiting.frame(id), request])) ?? false }
            if !sent { waiting.fail(id, "the connection to \(endpoint) is closed") }
        }
    }
}

/// The callers waiting for answers, shared by `send` and the socket thread.
private final class Waiting: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Data, any Error>
        var deadline: ContinuousClock.Instant
    }

    private let endpoint: String
    private let waiters = Mutex<(open: Bool, byId: [UInt64: Waiter])>((true, [:]))

    init(endpoint: String) { self.endpoint = endpoint }

    /// False (and the caller failed) once the connection has closed.
    func add(_ id: UInt64, _ continuation: CheckedContinuation<Data, any Error>, deadline: ContinuousClock.Instant) -> Bool {
        let open = waiters.withLock { state in
            if state.open { state.byId[id] = Waiter(continuation: continuation, deadline: deadline) }
            return state.open
        }
        if !open { continuation.resume(throwing: RequestConnection.Unavailable(description: "the connection to \(endpoint) is closed")) }
        return open
    }

    func fail(_ id: UInt64, _ reason: String) {
        waiters.withLock { $0.byId.removeValue(forKey: id) }?.continuation
            .resume(throwing: RequestConnection.Unavailable(description: reason))
    }

    func serve(outbox: ZMQSocket, dealer: ZMQSocket) throws {
        var poller = ZMQPoller()
        poller.register(outbox)
        poller.register(dealer)
        while true {
            let ready = try poller.poll(timeoutMilliseconds: 50)
            if ready[0].contains(.readable) {
                while let request = try outbox.receive(dontWait: true) {
                    // Only with several workers may no peer be connected (ZMQ_IMMEDIATE): then
                    // the send would block this thread, so the caller is told at once instead.
                    guard try dealer.send(request, dontWait: true) else {
                        if let id = Self.id(request[0]) { fail(id, "no worker at \(endpoint) is connected") }
                        continue
                    }
                }
            }
            if ready[1].contains(.readable) {
                while let reply = try dealer.receive(dontWait: true) {
                    guard reply.count == 2, let id = Self.id(reply[0]),
                          let waiter = waiters.withLock({ $0.byId.removeValue(forKey: id) }) else { continue }
                    waiter.continuation.resume(returning: reply[1])
                }
            }
            expireOverdue()
        }
    }

    private func expireOverdue() {
        let now = ContinuousClock.now
        let overdue = waiters.withLock { state in
            state.byId.filter { $0.value.deadline < now }.map(\.key).compactMap { state.byId.removeValue(forKey: $0) }
        }
        for waiter in overdue {
            waiter.continuation.resume(throwing: RequestConnection.Unavailable(description: "\(endpoint) did not answer in time"))
        }
    }

    func failAll() {
        let left = waiters.withLock { state in
            state.open = false
            defer { state.byId = [:] }
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
