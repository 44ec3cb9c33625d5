import Curl
import Foundation
import Logging
import Synchronization

/// The only way a provider reaches its upstream: each HTTP call first reserves a quota
/// unit and a token (atomically, in SQLite), then reads the quota the upstream reports.
final class UpstreamGate: Sendable {
    let provider: String
    let policy: LimiterPolicy
    private let http: HTTPClient
    private let store: FetchStore
    private let connectTimeout: Double
    private let timeout: Double
    private let logger: Logger
    private let inFlight = Mutex(0)

    init(
        provider: String, policy: LimiterPolicy, http: HTTPClient, store: FetchStore,
        connectTimeout: Double, timeout: Double, logger: Logger
    ) {
        self.provider = provider
        self.policy = policy
        self.http = http
        self.store = store
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.logger = logger
    }

    /// GETs `url` and returns a 2xx response; `logPath` is what may be logged (no key).
    func get(_ url: String, logPath: String) async throws(ProviderError) -> HTTPResponse {
        // Counted from the reservation on: a reserved call the upstream has not seen yet
        // must not be forgotten when its X-API-Quota-Left is read.
        inFlight.withLock { $0 += 1 }
        do {
            try await reserve()
        } catch {
            inFlight.withLock { $0 -= 1 }
            throw error
        }
        let started = ContinuousClock.now
        let response: HTTPResponse
        do {
            defer { inFlight.withLock { $0 -= 1 } }
            response = try await http.send(HTTPRequest(url: url, connectTimeout: connectTimeout, timeout: timeout))
        } catch {
            logger.warning("upstream call failed", metadata: ["provider": "\(provider)", "path": "\(logPath)", "error": "\(error)"])
            switch error.kind {
            case .connectionFailed:
                // Nothing reached the upstream, so nothing was charged there.
                await update { $0.refund(policy: self.policy) }
                throw .unavailable("cannot connect to \(provider): \(error.message)")
            case .timeout:
                throw .unavailable("\(provider) did not answer within \(timeout) s")
            case .other:
                throw .unavailable("\(provider) transfer failed: \(error.message)")
            }
        }
        logger.debug("upstream call", metadata: [
            "provider": "\(provider)", "path": "\(logPath)", "status": "\(response.status)",
            "elapsed": "\(started.duration(to: .now))",
            "quotaRequest": "\(response.headers["X-API-Quota-Request"] ?? "-")",
            "quotaUsed": "\(response.headers["X-API-Quota-Used"] ?? "-")",
            "quotaLeft": "\(response.headers["X-API-Quota-Left"] ?? "-")",
        ])
        try await observe(response)
        return response
    }

    private func reserve() async throws(ProviderError) {
        let now = Date()
        let reservation: LimiterState.Reservation
        do {
            reservation = try await store.updateLimiter(provider, policy: policy, now: now) { [policy] state in
                state.reserve(now: now, policy: policy)
            }
        } catch {
            // Without a durable reservation the quota could be overrun: do not call.
            logger.error("quota store failed", metadata: ["provider": "\(provider)", "error": "\(error)"])
            throw .unavailable("quota store failed: \(error)")
        }
        switch reservation {
        case .denied(let retryAfter):
            throw .quotaExhausted(retryAfter: retryAfter)
        case .granted(let wait):
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
        }
    }

    private func observe(_ response: HTTPResponse) async throws(ProviderError) {
        let now = Date()
        if let left = response.headers["X-API-Quota-Left"].flatMap(Double.init) {
            let others = inFlight.withLock { $0 }
            await update { [policy] in $0.observe(quotaLeft: left, othersInFlight: others, now: now, policy: policy) }
        }
        switch response.status {
        case 200..<300:
            return
        case 402:
            await update { [policy] in $0.observeQuotaSpent(now: now, policy: policy) }
            throw .quotaExhausted(retryAfter: LimiterState.secondsToNextUTCMidnight(now))
        case 429:
            let seconds = response.headers["Retry-After"].flatMap(Double.init).map { max(1, $0) } ?? 1
            await update { $0.observeRetryAfter(seconds: seconds, now: now) }
            throw .quotaExhausted(retryAfter: seconds)
        case 404:
            throw .notFound
        case 400:
            throw .rejected("\(provider) rejected the request: \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        default:
            throw .unavailable("\(provider) answered HTTP \(response.status)")
        }
    }

    private func update(_ change: @escaping @Sendable (inout LimiterState) -> Void) async {
        do {
            try await store.updateLimiter(provider, policy: policy, now: Date(), change)
        } catch {
            logger.error("quota store failed", metadata: ["provider": "\(provider)", "error": "\(error)"])
        }
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
