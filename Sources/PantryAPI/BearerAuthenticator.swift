import Foundation
import Hummingbird

/// Requires `Authorization: Bearer <token>` signed by this deployment, unexpired and not logged
/// out; the claims become `context.session`. Every failure is the same 401 to the client.
struct BearerAuthenticator: RouterMiddleware {
    typealias Context = APIRequestContext

    let signer: TokenSigner
    let revocations: RevocationList

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem.invalidToken("a bearer token is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Problem.invalidToken("the Authorization header must be 'Bearer <token>'")
        }
        let claims: SessionClaims
        do {
            claims = try signer.verify(String(parts[1].trimmingCharacters(in: .whitespaces)))
        } catch {
            throw Problem.invalidToken("the token is invalid or expired")
        }
        guard !revocations.isRevoked(claims.tokenId) else {
            throw Problem.invalidToken("the token is invalid or expired")
        }
        var context = context
        context.session = claims
        return try await next(request, context)
    }
}
