import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PantryLog
import PostgresNIO
import Synchronization

/// How a store's calls wait: every future the store waits for gets a deadline and can be failed
/// at once by `interrupt`. The one place a thread of the store's callers waits for the event loop.
final class Calls: Sendable {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// The longest any one call waits: a connection, a statement.
    let timeout: Duration
    private let waits = Mutex<Waits>(Waits())

    private struct Waits {
        var stopped = false
        var next = 0
        var pending: [Int: @Sendable (any Error) -> Void] = [:]
    }

    /// Why a call gave up.
    enum Failure: Error, CustomStringConvertible {
        case deadline(what: String, after: Duration)
        case stopping

        var description: String {
            switch self {
            case .deadline(let what, let after): "no answer to \(what) in \(after)"
            case .stopping: "the process is stopping"
            }
        }
    }

    init(timeout: Duration) {
        self.timeout = timeout
    }

    var stopped: Bool { waits.withLock { $0.stopped } }

    /// Waits for `future` on the calling thread (never the event loop: `wait` traps there), at most
    /// `timeout`, and no longer once `interrupt` is called. `unlessStopped: false` is for closing.
    func wait<T: Sendable>(_ future: EventLoopFuture<T>, _ what: String, within limit: Duration? = nil,
                           unlessStopped: Bool = true) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: promise)
        let id = waits.withLock { waits -> Int? in
            if waits.stopped && unlessStopped { return nil }
            waits.next += 1
            waits.pending[waits.next] = { promise.fail($0) }
            return waits.next
        }
        guard let id else { throw Failure.stopping }
        let timeout = limit.map { min($0, self.timeout) } ?? self.timeout
        let deadline = future.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout / .nanoseconds(1)))) {
            promise.fail(Failure.deadline(what: what, after: timeout))
        }
        defer {
            deadline.cancel()
            _ = waits.withLock { $0.pending.removeValue(forKey: id) }
        }
        return try promise.futureResult.wait()
    }

    /// Fails every wait under way with `Failure.stopping`, and every later one at once.
    func interrupt() {
        let pending = waits.withLock { waits in
            waits.stopped = true
            return waits.pending.values
        }
        for fail in pending { fail(Failure.stopping) }
    }
}

/// One session with the server, opened again after it is lost. A session is lost when a call
/// finds its connection closed (the server restarting or killed, `pg_terminate_backend`), when a
/// call passes its deadline (the connection is closed then: a late answer would belong to nobody),
/// or when the server says the session cannot go on (SQLSTATE classes 08 and 57P, or a primary
/// turned read-only). The loss is logged once with its reason; the next call opens a session
/// again, and while that fails calls throw `EventStoreError.unavailable` at once, an attempt
/// being made only every `backoff` (doubling from 50 ms to 1 s: a server back from a restart is
/// found within a second, and a server that stays down costs one attempt a second, not one a call).
final class Session: @unchecked Sendable {
    /// The writer's advisory lock was held by another session when this one opened.
    struct LockHeld: Error, CustomStringConvertible {
        var description: String {
            "the writer's advisory lock is held, by another core or by this core's previous session that the server has not ended yet"
        }
    }

    static let firstBackoff: Duration = .milliseconds(50)
    /// A connection on a LAN takes milliseconds; under a loaded test machine, one made while the
    /// server restarted now and then never answered (its deadline passed twice, 10 s). The
    /// shorter deadline bounds such an attempt without cutting a slow statement short.
    static let connectDeadline: Duration = .seconds(2)
    static let longestBackoff: Duration = .seconds(1)

    let name: String
    private let address: PostgresLogAddress
    private let calls: Calls
    private let takesLock: Bool
    /// Only a server not in recovery will do (a writer's sessions; a reader's with
    /// `target_session_attrs=read-write`).
    private let needsPrimary: Bool
    private let logger: Logger
    /// One opening at a time; held across the attempt (bounded by its deadline).
    private let opening = NIOLock()
    private let state = Mutex<State>(State())
    private let nextConnectionId = Atomic<Int>(1)

    private struct State {
        var connection: PostgresConnection?
        /// When the session was lost, while it is (nil when connected, or not opened yet).
        var lostAt: ContinuousClock.Instant?
        var reason = ""
        var retryAt: ContinuousClock.Instant?
        var backoff = Session.firstBackoff
    }

    init(name: String, address: PostgresLogAddress, calls: Calls, takesLock: Bool, needsPrimary: Bool, logger: Logger) {
        self.name = name
        self.address = address
        self.calls = calls
        self.takesLock = takesLock
        self.needsPrimary = needsPrimary
        self.logger = logger
    }

    /// Opens the session when the store opens: its errors are thrown as they are (`LockHeld` included).
    func openFirst() throws {
        try opening.withLock {
            let connection = try open()
            install(connection)
        }
    }

    /// The session's connection, opened again if it was lost (and the backoff allows).
    func connection() throws -> PostgresConnection {
        if let connection = state.withLock({ $0.connection }), !connection.isClosed, !calls.stopped { return connection }
        return try opening.withLock {
            if calls.stopped { throw EventStoreError.unavailable(Calls.Failure.stopping.description) }
            if let connection = state.withLock({ $0.connection }) {
                if !connection.isClosed { return connection }
                lose(connection, reason: "the server closed the connection")
            }
            let now = ContinuousClock.now
            let waiting = state.withLock { s in s.retryAt.map { (until: $0, reason: s.reason) } }
            if let waiting, now < waiting.until {
                throw EventStoreError.unavailable("\(waiting.reason) (next attempt in \(Int((waiting.until - now) / .milliseconds(1))) ms)")
            }
            do {
                let connection = try open()
                let outage = state.withLock { s in s.lostAt.map { now - $0 } }
                install(connection)
                if let outage {
                    logger.notice("the PostgreSQL log's session is open again", metadata: [
                        "session": "\(name)", "log": "\(address)",
                        "outage_ms": "\(Int(outage / .milliseconds(1)))",
                    ])
                }
                return connection
            } catch {
                let reason = error is LockHeld || error is NoHost ? "\(error)" : "cannot connect: \(Self.reason(error))"
                let first = state.withLock { s in
                    let first = s.lostAt == nil
                    if first { s.lostAt = now }
                    s.reason = reason
                    s.retryAt = now + s.backoff
                    s.backoff = min(s.backoff * 2, Self.longestBackoff)
                    return first
                }
                if first {
                    logger.warning("the PostgreSQL log cannot be reached; commands fail until it can", metadata: [
                        "session": "\(name)", "log": "\(address)", "reason": "\(reason)"])
                } else {
                    logger.debug("the PostgreSQL log still cannot be reached", metadata: ["session": "\(name)", "reason": "\(reason)"])
                }
                throw EventStoreError.unavailable(reason)
            }
        }
    }

    /// One statement on the session's connection (opened again if it was lost).
    @discardableResult
    func run(_ query: PostgresQuery) throws -> [PostgresRow] {
        try run(query, on: connection())
    }

    /// One statement on `connection`, which must be this session's; a loss of the session is
    /// thrown as `EventStoreError.unavailable`, a statement's own error as it is.
    @discardableResult
    func run(_ query: PostgresQuery, on connection: PostgresConnection) throws -> [PostgresRow] {
        do {
            return try calls.wait(connection.query(query, logger: logger), "a statement").rows
        } catch {
            guard Self.losesSession(error, connection) else { throw error }
            let reason = Self.reason(error)
            lose(connection, reason: reason)
            throw EventStoreError.unavailable(reason)
        }
    }

    /// Closes the session now (a writer's lock is released with it); a later call opens it again.
    func close() {
        guard let connection = state.withLock({ s in s.connection.take() }) else { return }
        _ = try? calls.wait(connection.close(), "closing", unlessStopped: false)
    }

    // MARK: Opening and losing

    /// Why no host would do: each one's reason.
    struct NoHost: Error, CustomStringConvertible {
        var reasons: [String]
        var description: String { reasons.joined(separator: "; ") }
    }

    /// A standby, where a primary is needed.
    struct Standby: Error, CustomStringConvertible {
        var description: String { "a standby (in recovery), not the primary" }
    }

    /// A connection to the first host that will do, in order (as libpq tries them), with the
    /// writer's lock taken. A lock held on the primary is not a reason to try the next host.
    private func open() throws -> PostgresConnection {
        guard address.hosts.count > 1 else { return try open(address.hosts[0]) }
        var reasons: [String] = []
        for host in address.hosts {
            do {
                return try open(host)
            } catch let error as LockHeld {
                throw error
            } catch let error as Calls.Failure {
                if case .stopping = error { throw error }
                reasons.append("\(host): \(error)")
            } catch {
                reasons.append("\(host): \(Self.reason(error))")
            }
        }
        throw NoHost(reasons: reasons)
    }

    private func open(_ host: PostgresLogAddress.Host) throws -> PostgresConnection {
        var configuration = address.configuration(host)
        configuration.options.connectTimeout = .nanoseconds(Int64(min(calls.timeout, Self.connectDeadline) / .nanoseconds(1)))
        let future = PostgresConnection.connect(
            on: calls.group.next(), configuration: configuration,
            id: nextConnectionId.wrappingAdd(1, ordering: .relaxed).oldValue, logger: logger)
        let connection: PostgresConnection
        do {
            connection = try calls.wait(future, "connecting to \(host)", within: Self.connectDeadline)
        } catch {
            // A connection made after its deadline is nobody's.
            future.whenSuccess { Self.discard($0) }
            throw error
        }
        do {
            // After a failover the old primary may come back as it was, and a standby answers
            // reads of a log behind the primary's: a writer asks which this is.
            if needsPrimary && address.hosts.count > 1 {
                guard try calls.wait(connection.query("SELECT pg_is_in_recovery()", logger: logger), "asking for the primary",
                                     within: Self.connectDeadline).first?.decode(Bool.self) == false else { throw Standby() }
            }
            if takesLock {
                guard try calls.wait(connection.query("SELECT pg_try_advisory_lock(\(PostgresEventStore.writerLockKey))", logger: logger),
                                     "taking the writer's lock", within: Self.connectDeadline).first?.decode(Bool.self) == true else { throw LockHeld() }
            }
            return connection
        } catch {
            Self.discard(connection)
            throw error
        }
    }

    private func install(_ connection: PostgresConnection) {
        state.withLock { s in
            s.connection = connection
            s.lostAt = nil
            s.retryAt = nil
            s.backoff = Self.firstBackoff
        }
        // An idle session lost is logged when it goes, not at the next call.
        connection.closeFuture.whenComplete { [weak self] _ in
            self?.lose(connection, reason: "the server closed the connection")
        }
    }

    /// The session's `connection` is gone: logged once (a later loss of the same outage is not),
    /// and the next call opens another at once.
    private func lose(_ connection: PostgresConnection, reason: String) {
        let first = state.withLock { s -> Bool in
            guard s.connection === connection else { return false }
            s.connection = nil
            s.retryAt = nil
            s.backoff = Self.firstBackoff
            s.reason = reason
            guard s.lostAt == nil else { return false }
            s.lostAt = .now
            return true
        }
        Self.discard(connection)
        if first {
            logger.warning("lost the PostgreSQL log's session; commands fail until it is open again", metadata: [
                "session": "\(name)", "log": "\(address)", "reason": "\(reason)"])
        }
    }

    /// Closes `connection` without waiting, and keeps it until it is closed (PostgresNIO asserts
    /// that a connection is closed when it is freed).
    private static func discard(_ connection: PostgresConnection) {
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Whether `error` from a statement on `connection` means the session cannot go on.
    static func losesSession(_ error: any Error, _ connection: PostgresConnection) -> Bool {
        if error is Calls.Failure || connection.isClosed { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
            return true
        case .server:
            // 08: connection exceptions; 57P: the server shutting down, terminating the session
            // (`pg_terminate_backend`) or not yet accepting; 25006: a read-only transaction, on a
            // primary demoted to a standby.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P") || state == "25006"
        default:
            return false
        }
    }

    /// PSQLError's description hides everything; a connection's failure holds no secret.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        }
        return "\(error)"
    }
}
