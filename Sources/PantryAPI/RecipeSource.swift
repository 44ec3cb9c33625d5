import Foundation
import Hummingbird
import Logging
import PantryBus
import PantryFetch
import PantryJSON
import ZeroMQ

/// Recipe data from the fetch worker (`pantry fetch`), over ZeroMQ. Requests are checked here
/// first, so a bad one costs no round trip; the worker checks them again.
final class RecipeSource: Sendable {
    private let connection: RequestConnection
    /// What the worker is told it has: this process's own wait, less a second for the way back,
    /// so that a slow upstream is reported as such rather than as a silent worker.
    private let deadlineMs: Int

    init(context: ZMQContext, endpoint: String, timeout: Duration, logger: Logger) throws {
        connection = try RequestConnection(context: context, endpoint: endpoint, timeout: timeout, logger: logger)
        deadlineMs = max(100, Int(timeout / .milliseconds(1)) - 1_000)
    }

    /// A request on behalf of `client` (the caller's address), whose upstream calls are limited,
    /// and how long the answer is waited for.
    struct OnBehalf: Encodable {
        var request: FetchRequest
        var client: String?
        var deadlineMs: Int

        private enum CodingKeys: String, CodingKey { case client, deadlineMs }

        func encode(to encoder: any Encoder) throws {
            try request.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(client, forKey: .client)
            try c.encode(deadlineMs, forKey: .deadlineMs)
        }
    }

    func fetch(_ request: FetchRequest, client: String? = nil) async throws -> FetchResponse {
        switch try JSONDecoder().decode(FetchResult.self, from: try await send(request, client: client)) {
        case .success(let response): return response
        case .failure(let error): throw Self.problem(error)
        }
    }

    /// The worker's answer, as the bytes of its `response` object, for routes that pass it on
    /// unchanged: decoding it and encoding it again cost more than the rest of a search.
    func fetchAsIs(_ request: FetchRequest, client: String? = nil) async throws -> Data {
        let reply = try await send(request, client: client)
        let response = try? reply.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json -> Data? in try json.bool("ok") ? Data(try json.object("response")) : nil }
        }
        if let response { return response }
        if case .failure(let error) = try JSONDecoder().decode(FetchResult.self, from: reply) { throw Self.problem(error) }
        throw RecipeRoutes.wrongPayload
    }

    private func send(_ request: FetchRequest, client: String?) async throws -> Data {
        let checked: FetchRequest
        do {
            checked = try request.validated()
        } catch {
            throw Self.problem(error)
        }
        do {
            return try await connection.send(try JSONEncoder().encode(OnBehalf(request: checked, client: client, deadlineMs: deadlineMs)))
        } catch {
            throw Problem(.serviceUnavailable, code: "fetch_unavailable",
                          detail: "the fetch worker did not answer in time", headers: [.retryAfter: "1"])
        }
    }

    private static func problem(_ error: FetchError) -> Problem {
        switch error {
        case .quotaExhausted(let seconds):
            Problem(.serviceUnavailable, code: "quota_exhausted",
                    detail: "the recipe provider's quota is spent and nothing is cached; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .rateLimited(let seconds):
            Problem(.serviceUnavailable, code: "upstream_rate_limited",
                    detail: "too many calls to the recipe provider for now and nothing is cached; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .budgetExhausted(let seconds):
            Problem(.tooManyRequests, code: "upstream_budget_exhausted",
                    detail: "you have asked the recipe provider for much that was not cached; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .upstreamUnavailable(let reason):
            Problem(.serviceUnavailable, code: "upstream_unavailable",
                    detail: "the recipe provider is unavailable and nothing is cached: \(reason)", headers: [.retryAfter: "30"])
        case .badRequest(let message):
            Problem(.unprocessableContent, code: "invalid_query", detail: message)
        case .notFound:
            Problem(.notFound, code: "not_found", detail: "no such recipe or image")
        }
    }
}
