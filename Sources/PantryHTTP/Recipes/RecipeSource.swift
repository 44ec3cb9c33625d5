import Foundation
import Hummingbird
import NIOCore
import PantryJSON
import PantryWire

/// Recipe data from the fetch worker (`pantry fetch`), through the `RecipePort`. Requests are
/// checked here first, so a bad one costs no round trip; the worker checks them again.
struct RecipeSource: Sendable {
    private let port: any RecipePort
    private let answers: RecipeReplyCache

    /// `reuse`: how long an answer the worker says stays the same may be given again without
    /// asking it (zero: always ask).
    init(port: any RecipePort, reuse: Duration) {
        self.port = port
        answers = RecipeReplyCache(lifetime: reuse)
    }

    func fetch(_ request: FetchRequest, client: String? = nil) async throws -> FetchResponse {
        switch try JSONDecoder().decode(FetchResult.self, from: try await send(try Self.checked(request), client: client)) {
        case .success(let response): return response
        case .failure(let error): throw Self.problem(error)
        }
    }

    /// The worker's answer, as the bytes of its `response` object, for routes that pass it on
    /// unchanged: decoding it and encoding it again cost more than the rest of a search.
    func fetchAsIs(_ request: FetchRequest, client: String? = nil) async throws -> ByteBuffer {
        let checked = try Self.checked(request)
        if let body = answers.body(checked) { return body }
        let reply = try await send(checked, client: client)
        let found = try? reply.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json -> (body: ByteBuffer, reusableForMs: Int?)? in
                try json.bool("ok") ? (ByteBuffer(bytes: try json.object("response")), try json.optionalInt("reusableForMs")) : nil
            }
        }
        if let found {
            if let reusable = found.reusableForMs { answers.keep(checked, found.body, reusableForMs: reusable) }
            return found.body
        }
        if case .failure(let error) = try JSONDecoder().decode(FetchResult.self, from: reply) { throw Self.problem(error) }
        throw RecipeRoutes.wrongPayload
    }

    private static func checked(_ request: FetchRequest) throws -> FetchRequest {
        do {
            return try request.validated()
        } catch {
            throw problem(error)
        }
    }

    private func send(_ checked: FetchRequest, client: String?, timeout: Duration? = nil) async throws -> Data {
        do {
            return try await port.send(checked, client: client, timeout: timeout)
        } catch let error as PortUnavailable where error.notConnected {
            throw Problem(.fetchUnavailable, detail: "the fetch worker is not running (no connection to it)", headers: [.retryAfter: "5"])
        } catch {
            throw Problem(.fetchUnavailable, detail: "the fetch worker did not answer in time", headers: [.retryAfter: "1"])
        }
    }

    /// Nil when the fetch worker answers within `limit`, else why not (for `/ready`). It is asked
    /// for today's featured recipe, which the catalog answers without spending any quota.
    func unavailability(within limit: Duration) async -> String? {
        do {
            _ = try await send(.featured(day: FetchRequest.utcDay.string(from: Date())), client: nil, timeout: limit)
            return nil
        } catch let problem as Problem {
            return problem.detail
        } catch {
            return "\(error)"
        }
    }

    private static func problem(_ error: FetchError) -> Problem {
        switch error {
        case .quotaExhausted(let seconds):
            Problem(.quotaExhausted, detail: "the recipe provider's quota is spent and nothing is cached; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .rateLimited(let seconds):
            Problem(.upstreamRateLimited,
                    detail: "too many calls to the recipe provider for now and nothing is cached; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .budgetExhausted(let seconds):
            Problem(.upstreamBudgetExhausted,
                    detail: "you have asked the recipe provider for much that was not cached; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .overallBudgetExhausted(let seconds):
            // Said of everyone: this client may have asked nothing before.
            Problem(.upstreamBudgetExhausted,
                    detail: "the recipe provider has been asked for much that was not cached, by all clients together; retry in \(seconds) s",
                    headers: [.retryAfter: String(seconds)])
        case .upstreamUnavailable(let reason):
            Problem(.upstreamUnavailable,
                    detail: "the recipe provider is unavailable and nothing is cached: \(reason)", headers: [.retryAfter: "30"])
        case .badRequest(let message):
            Problem(.invalidQuery, detail: message)
        case .notFound:
            Problem(.notFound, detail: "no such recipe or image")
        }
    }
}
