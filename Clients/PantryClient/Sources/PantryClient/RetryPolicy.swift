import Foundation
import HTTPTypes
import OpenAPIRuntime

/// When a request is sent again: after a transport error or a 502, 503 or 504 (if sending it
/// twice is harmless: a read, or a command with its Idempotency-Key), and after a 429 with a
/// `Retry-After` short enough to wait for (a refusal changed nothing). Waits double from
/// `initialBackoff` to `maxBackoff`, with jitter so that clients cut off together do not return
/// together; a `Retry-After` given is waited for instead.
public struct RetryPolicy: Sendable {
    /// Tries in all, the first included.
    public var maxAttempts: Int
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    /// A 429 asking for a longer wait (a person's pace of points) is the caller's to show.
    public var maxRetryAfter: Duration

    public init(maxAttempts: Int = 6, initialBackoff: Duration = .milliseconds(200),
                maxBackoff: Duration = .seconds(5), maxRetryAfter: Duration = .seconds(10)) {
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait before try `attempt + 1` (attempt counts from 1): full jitter over the doubled backoff.
    func backoff(after attempt: Int) -> Duration {
        let doubled = initialBackoff * (1 << min(attempt - 1, 16))
        let ceiling = min(doubled, maxBackoff)
        return ceiling * Double.random(in: 0.5...1.0)
    }
}

/// The retries of `RetryPolicy`, around every request of the generated client. The request is
/// sent again unchanged, so a command keeps its Idempotency-Key: the server answers a retry of a
/// command it already applied with the first outcome and applies nothing twice.
struct RetryMiddleware: ClientMiddleware {
    let policy: RetryPolicy

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        let repeatable = Self.isRepeatable(request)
        var attempt = 1
        while true {
            let response: HTTPResponse, responseBody: HTTPBody?
            do {
                (response, responseBody) = try await next(request, body, baseURL)
            } catch {
                guard repeatable, attempt < policy.maxAttempts, !Task.isCancelled, Self.isTransport(error) else { throw error }
                try await Task.sleep(for: policy.backoff(after: attempt))
                attempt += 1
                continue
            }
            guard attempt < policy.maxAttempts, let wait = wait(before: response, repeatable: repeatable, attempt: attempt) else {
                return (response, responseBody)
            }
            try await Task.sleep(for: wait)
            attempt += 1
        }
    }

    /// How long to wait before sending `request` again after `response`, or nil to answer it.
    private func wait(before response: HTTPResponse, repeatable: Bool, attempt: Int) -> Duration? {
        let retryAfter = response.headerFields[.retryAfter].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .map { Duration.seconds(max(0, $0)) }
        switch response.status.code {
        case 429:
            guard let retryAfter, retryAfter <= policy.maxRetryAfter else { return nil }
            return retryAfter
        case 502, 503, 504:
            guard repeatable else { return nil }
            let backoff = policy.backoff(after: attempt)
            guard let retryAfter else { return backoff }
            return retryAfter <= policy.maxRetryAfter ? max(retryAfter, backoff) : nil
        default:
            return nil
        }
    }

    /// Sending it twice does no harm: a read, or a command the server recognises by its key. A
    /// log-in, a refresh or a registration is not: a refresh whose answer was lost cannot be asked again.
    static func isRepeatable(_ request: HTTPRequest) -> Bool {
        request.method == .get || request.method == .head || request.headerFields[idempotencyKey] != nil
    }

    /// The network failed, rather than this client deciding not to send (no session) or the task ending.
    static func isTransport(_ error: any Error) -> Bool {
        let underlying = (error as? ClientError)?.underlyingError ?? error
        return !(underlying is PantryError) && !(underlying is CancellationError)
    }

    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}
