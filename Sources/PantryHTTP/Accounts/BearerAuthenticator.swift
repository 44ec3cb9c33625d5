import Foundation
import Hummingbird
import Synchronization
import PantryTokens

/// Requires `Authorization: Bearer <token>` signed by this deployment, unexpired, not logged out,
/// for an account that still exists and whose password has not changed since; the claims become
/// `context.session`. Every failure is the same 401 to the client, unless the token is `optional`
/// (public routes that count a signed-in user's use by account): then the request goes on without
/// a session.
struct BearerAuthenticator: RouterMiddleware {
    typealias Context = APIRequestContext

    let signer: TokenSigner
    let revocations: RevocationList
    let accounts: AccountDirectory
    let feed: any FeedPort
    let verified = VerifiedTokens()
    var optional = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if optional {
            // The route needs no session: a token that cannot be judged (invalid, or the accounts
            // not loaded yet) leaves it without one.
            if !request.headers[values: .authorization].isEmpty { context.session = try? await session(of: request) }
        } else {
            context.session = try await session(of: request)
        }
        return try await next(request, context)
    }

    private func session(of request: Request) async throws -> SessionClaims {
        // The values as sent: the subscript joins every field of a name into a new string.
        let headers = request.headers[values: .authorization]
        guard let header = headers.first else {
            throw Problem.invalidToken("a bearer token is required")
        }
        guard headers.count == 1, let token = Self.bearerToken(header) else {
            throw Problem.invalidToken("the Authorization header must be 'Bearer <token>'")
        }
        let now = Date()
        let claims: SessionClaims
        if let known = verified.claims(for: token), known.expiresAt > Int64(now.timeIntervalSince1970) {
            claims = known
        } else {
            do {
                claims = try signer.verify(token, now: now)
            } catch {
                throw Problem.invalidToken("the token is invalid or expired")
            }
            verified.remember(token, claims)
        }
        guard feed.progress.loaded else {
            throw Problem(.starting, detail: "the API is still loading the accounts",
                          headers: [.retryAfter: "1"])
        }
        // A token newer than the account as known here (issued by another API process for an
        // account or password this one has not read yet) waits for the log before it is judged.
        if (accounts.credentialsGeneration(of: claims.userId) ?? -1) < claims.credentialsGeneration {
            await feed.catchUpWithLog(timeout: .seconds(1))
        }
        guard !revocations.isRevoked(claims.tokenId),
              accounts.credentialsGeneration(of: claims.userId) == claims.credentialsGeneration else {
            throw Problem.invalidToken("the token is invalid or expired")
        }
        return claims
    }

    /// The token of `Bearer <token>` (the scheme in any case, spaces around the token ignored).
    static func bearerToken(_ header: String) -> String? {
        guard let space = header.utf8.firstIndex(of: UInt8(ascii: " ")), header[..<space].lowercased() == "bearer" else { return nil }
        let token = header[header.utf8.index(after: space)...].trimmingBlanks
        return token.isEmpty ? nil : String(token)
    }
}

/// Tokens whose signature has been checked, so a client's every request does not pay for base64,
/// JSON and HMAC again (a sixth of the API's CPU under load). Expiry and logout are still checked
/// on every request; the memory is bounded by starting afresh when full.
final class VerifiedTokens: Sendable {
    static let capacity = 100_000
    private let byToken = Mutex<[String: SessionClaims]>([:])

    func claims(for token: String) -> SessionClaims? {
        byToken.withLock { $0[token] }
    }

    func remember(_ token: String, _ claims: SessionClaims) {
        byToken.withLock { tokens in
            if tokens.count >= Self.capacity { tokens.removeAll(keepingCapacity: true) }
            tokens[token] = claims
        }
    }
}
