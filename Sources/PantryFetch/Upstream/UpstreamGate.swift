import Curl
import Foundation
import Logging
import Synchronization

/// The only way a provider reaches its upstream. A call is granted a token and room in the quota
/// for its worst-case cost (points), waits for its turn and one of `maxConcurrent` slots, checks
/// the block and the quota once more right before it leaves (a 402 or 429 may have arrived while
/// it waited), is charged its worst case then, and is settled to what the upstream reports.
/// The quota is never inflated by calls still waiting (500 distinct requests once left `used` at
/// 481 of 150 and blocked the rest of the day), nor spent by a crash before a call left.
final class UpstreamGate: Sendable {
    /// Who waits for this call and until when (the API's own deadline, passed down with the
    /// request): a call still waiting for its turn then, or whose deadline leaves less than the
    /// upstream usually takes, is not made; one made runs until it ends or `timeout`.
    @TaskLocal static var waiters: CallWaiters?

    private static var deadline: ContinuousClock.Instant? { waiters?.deadline }

    let provider: String
    let policy: LimiterPolicy
    private let http: HTTPClient
    private let store: FetchStore
    private let connectTimeout: Double
    private let timeout: Double
    /// A longer answer is cut off and the call fails (`HTTPRequest.maxBodyBytes`).
    private let maxBodyBytes: Int
    private let logger: Logger
    /// The wall clock the quota's days, the token bucket and the upstream's blocks are counted in
    /// (the service's). A token's wait and the transfer run on real time.
    private let now: @Sendable () -> Date
    /// Worst-case points of calls granted and not yet sent, and of calls sent and not yet
    /// answered; what the upstream's own count says of today (`UpstreamAccount`); how long it
    /// takes to answer (`UpstreamLatency`).
    private let points = Mutex((waiting: 0.0, sent: 0.0, account: UpstreamAccount(), latency: UpstreamLatency()))
    private let slots: AsyncSlots

    init(
        provider: String, policy: LimiterPolicy, http: HTTPClient, store: FetchStore,
        connectTimeout: Double, timeout: Double, maxBodyBytes: Int, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.provider = provider
        self.policy = policy
        self.http = http
        self.store = store
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.logger = logger
        self.now = now
        slots = AsyncSlots(policy.maxConcurrent)
    }

    /// GETs `url` and returns a 2xx response; `logPath` is what may be logged (no key); `cost` is
    /// the call's worst case in quota points.
    func get(_ url: String, logPath: String, cost: Double = 1) async throws(ProviderError) -> HTTPResponse {
        if let late = tooLate() { throw late }
        try await reserve(cost: cost)
        await slots.acquire()
        defer { slots.release() }
        // Waited past the caller's deadline for its turn (or nobody waits any more): not made, and
        // said so (our own pacing, not the upstream, was slow), so nothing is spent on an answer
        // nobody waits for; nor when what is left is less than the upstream usually takes.
        let left = Self.deadline.map { Self.seconds(from: .now, to: $0) }
        if let left, left < 0.1 {
            points.withLock { $0.waiting -= cost }
            await update { [policy] in $0.refundToken(policy: policy) }
            logger.notice("call not made: it waited for its turn past the caller's deadline", metadata: ["provider": "\(provider)"])
            throw .rateLimited(retryAfter: 1)
        }
        if let late = tooLate() {
            points.withLock { $0.waiting -= cost }
            await update { [policy] in $0.refundToken(policy: policy) }
            throw late
        }
        do {
            try await charge(cost: cost)
        } catch .quotaExhausted(let retryAfter) {
            // As in `reserve`: spent only once the calls in the air are answered.
            guard await callsInTheAirAnswered() else { throw .quotaExhausted(retryAfter: retryAfter) }
            try await reserveOnce(cost: cost)
            try await charge(cost: cost)
        }
        let started = ContinuousClock.now
        // The transfer is not cut at the caller's deadline: the caller gets its fallback at its own
        // time anyway, and a transfer cut while the upstream still worked on it freed its slot for
        // a third call at once where the limit is 2. The answer that comes fills the cache.
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(url: url, connectTimeout: min(connectTimeout, timeout), timeout: timeout,
                                                       maxBodyBytes: maxBodyBytes))
            let took = Self.seconds(from: started, to: .now)
            points.withLock { $0.latency.record(took, at: .now) }
        } catch {
            logger.warning("upstream call failed", metadata: ["provider": "\(provider)", "path": "\(logPath)", "error": "\(error)"])
            switch error.kind {
            case .connectionFailed:
                // Nothing reached the upstream, so nothing was charged there.
                points.withLock { $0.sent -= cost }
                await update { [policy] in $0.refund(charged: cost, policy: policy) }
                throw .unavailable("cannot connect to the upstream")
            case .timeout:
                let now = self.now()
                points.withLock { $0.sent -= cost; $0.account.lost(now: now); $0.latency.record(timeout, at: .now) }
                throw .unavailable("the upstream did not answer within \(String(format: "%.1f", timeout)) s")
            case .other:
                let now = self.now()
                points.withLock { $0.sent -= cost; $0.account.lost(now: now) }
                throw .unavailable("the transfer from the upstream failed")
            }
        }
        logger.debug("upstream call", metadata: [
            "provider": "\(provider)", "path": "\(logPath)", "status": "\(response.status)",
            "elapsed": "\(started.duration(to: .now))",
            "quotaRequest": "\(response.headers["X-API-Quota-Request"] ?? "-")",
            "quotaUsed": "\(response.headers["X-API-Quota-Used"] ?? "-")",
            "quotaLeft": "\(response.headers["X-API-Quota-Left"] ?? "-")",
        ])
        try await observe(response, charged: cost)
        return response
    }

    /// Why no call should be made for the waiting caller: its deadline leaves less than the
    /// upstream usually takes (measured); nil when it leaves enough, or there is no deadline.
    private func tooLate() -> ProviderError? {
        guard let deadline = Self.deadline, let expected = points.withLock({ $0.latency.expected(at: .now) }) else { return nil }
        let left = Self.seconds(from: .now, to: deadline)
        guard left < expected else { return nil }
        logger.notice("call not made: the caller's deadline is nearer than the upstream's usual answer", metadata: [
            "provider": "\(provider)", "left": "\(String(format: "%.1f", left))", "usual": "\(String(format: "%.1f", expected))"])
        return .unavailable("the upstream usually answers in \(String(format: "%.1f", expected)) s, later than the caller waits")
    }

    private static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
        let duration = start.duration(to: end)
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func reserve(cost: Double) async throws(ProviderError) {
        do {
            try await reserveOnce(cost: cost)
        } catch .quotaExhausted(let retryAfter) {
            // Calls in the air are counted at their worst case beside the upstream's own count,
            // which may already hold them, so the quota can look spent by their cost (149 of 150
            // served to 500 callers at once): it is only certain once they are answered.
            guard await callsInTheAirAnswered() else { throw .quotaExhausted(retryAfter: retryAfter) }
            try await reserveOnce(cost: cost)
        }
    }

    /// Waits until no call is in the air, within the transfer timeout and the caller's deadline;
    /// false when none was.
    private func callsInTheAirAnswered() async -> Bool {
        guard points.withLock({ $0.sent > 0 }) else { return false }
        var until = ContinuousClock.now + .seconds(timeout)
        if let deadline = Self.deadline, deadline < until { until = deadline }
        while points.withLock({ $0.sent > 0 }), ContinuousClock.now < until {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    private func reserveOnce(cost: Double) async throws(ProviderError) {
        let now = self.now()
        let reservation: LimiterState.Reservation
        do {
            reservation = try await store.updateLimiter(provider, policy: policy, now: now) { [policy, self] state in
                self.points.withLock { points in
                    let granted = state.reserve(now: now, policy: policy, cost: cost, waiting: points.waiting)
                    if case .granted = granted { points.waiting += cost }
                    return granted
                }
            }
        } catch {
            // Without a durable reservation the quota could be overrun: do not call.
            logger.error("quota store failed", metadata: ["provider": "\(provider)", "error": "\(error)"])
            throw .unavailable("the quota store failed")
        }
        switch reservation {
        case .denied(let retryAfter, let reason):
            throw reason == .quota ? .quotaExhausted(retryAfter: retryAfter) : .rateLimited(retryAfter: retryAfter)
        case .granted(let wait):
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
        }
    }

    /// Right before the call leaves: the block and the quota checked again, the worst case charged.
    private func charge(cost: Double) async throws(ProviderError) {
        let now = self.now()
        let charged: LimiterState.Reservation
        do {
            charged = try await store.updateLimiter(provider, policy: policy, now: now) { [policy, self] state in
                let result = state.charge(now: now, policy: policy, cost: cost)
                self.points.withLock { points in
                    points.waiting -= cost
                    if case .granted = result {
                        points.sent += cost
                        points.account.sent(cost, now: now)
                    } else {
                        state.refundToken(policy: policy)
                    }
                }
                return result
            }
        } catch {
            points.withLock { $0.waiting -= cost }
            logger.error("quota store failed", metadata: ["provider": "\(provider)", "error": "\(error)"])
            throw .unavailable("the quota store failed")
        }
        if case .denied(let retryAfter, let reason) = charged {
            throw reason == .quota ? .quotaExhausted(retryAfter: retryAfter) : .rateLimited(retryAfter: retryAfter)
        }
    }

    private func observe(_ response: HTTPResponse, charged: Double) async throws(ProviderError) {
        let now = self.now()
        // A refused call (402, 429) is not charged upstream.
        let request = [402, 429].contains(response.status) ? 0 : response.headers["X-API-Quota-Request"].flatMap(Double.init)
        let upstreamUsed = response.headers["X-API-Quota-Used"].flatMap(Double.init)
        let upstreamLeft = response.headers["X-API-Quota-Left"].flatMap(Double.init)
        var upstreamAccount = upstreamUsed
        if upstreamAccount == nil, let quota = policy.dailyQuota, let upstreamLeft {
            upstreamAccount = max(0, Double(quota) - upstreamLeft)
        }
        await update { [policy, self, upstreamAccount] state in
            let (uncounted, latest) = self.points.withLock { points in
                var latest: Double?
                if let upstreamAccount { latest = points.account.read(upstreamAccount, inAir: points.sent, now: now, policy: policy) }
                points.sent -= charged
                return (points.account.uncounted(inAir: points.sent, now: now), latest)
            }
            state.settle(charged: charged, request: request, upstreamUsed: latest, upstreamLeft: nil,
                         uncounted: uncounted, now: now, policy: policy)
        }
        switch response.status {
        case 200..<300:
            return
        case 402:
            let upstreamClock = response.headers["Date"].flatMap(HTTPDate.parse)
            await update { [policy] in $0.observeQuotaSpent(now: now, upstreamClock: upstreamClock, policy: policy) }
            throw .quotaExhausted(retryAfter: max(1, (try? await blockedFor(now: now)) ?? 60))
        case 429:
            let seconds = RetryAfter.seconds(response.headers["Retry-After"], now: now) ?? 1
            await update { $0.observeRetryAfter(seconds: seconds, now: now) }
            throw .rateLimited(retryAfter: seconds)
        case 401, 403:
            // A wrong or revoked key: every call would be refused (and may be charged); stop for a while.
            await update { $0.observeRetryAfter(seconds: Self.refusedKeyPause, now: now) }
            logger.error("the upstream refused the API key; check PANTRY_SPOONACULAR_KEY", metadata: ["provider": "\(provider)"])
            throw .unavailable("the upstream refused this deployment's key")
        case 404:
            throw .notFound
        case 400:
            throw .rejected("the upstream rejected the request")
        default:
            throw .unavailable("the upstream answered HTTP \(response.status)")
        }
    }

    static let refusedKeyPause: Double = 600

    /// A 2xx answer at `logPath` that could not be read: logged with its provider, path and why;
    /// what the caller reads names none of them (they are this deployment's business).
    func malformed(_ logPath: String, _ error: any Error) -> ProviderError {
        logger.warning("malformed upstream answer", metadata: ["provider": "\(provider)", "path": "\(logPath)", "error": "\(error)"])
        return .unavailable("the upstream sent malformed JSON")
    }

    private func blockedFor(now: Date) async throws -> Double {
        try await store.updateLimiter(provider, policy: policy, now: now) { $0.blockedUntil - now.timeIntervalSince1970 }
    }

    private func update(_ change: @escaping @Sendable (inout LimiterState) -> Void) async {
        do {
            try await store.updateLimiter(provider, policy: policy, now: now(), change)
        } catch {
            logger.error("quota store failed", metadata: ["provider": "\(provider)", "error": "\(error)"])
        }
    }
}

/// `Retry-After` as seconds or as an HTTP date (RFC 9110), at least 1 s.
enum RetryAfter {
    static func seconds(_ value: String?, now: Date) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds.isFinite, seconds >= 0 { return max(1, seconds) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(1, date.timeIntervalSince(now))
    }
}

/// An HTTP date (RFC 9110's IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"), as `Date` and
/// `Retry-After` carry it.
enum HTTPDate {
    static func parse(_ value: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value.trimmingCharacters(in: .whitespaces))
    }
}

/// At most `count` holders at once; the others wait in order, without a thread each.
final class AsyncSlots: Sendable {
    private let state: Mutex<(free: Int, waiters: [CheckedContinuation<Void, Never>])>

    init(_ count: Int) {
        state = Mutex((max(1, count), []))
    }

    func acquire() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// Builds "base/path?a=b" with every query value percent-encoded (commas and plus signs too).
func upstreamURL(_ base: String, _ path: String, _ query: [(String, String)]) -> String {
    let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
    let encoded = query.map { name, value in
        "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
    }
    return trimmedBase + path + (encoded.isEmpty ? "" : "?" + encoded.joined(separator: "&"))
}
