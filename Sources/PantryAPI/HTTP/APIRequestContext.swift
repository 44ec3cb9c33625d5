import Hummingbird
import NIOCore
import PantryTokens

/// The per-request context: Hummingbird's core storage plus the session a bearer token proved.
package struct APIRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// Set by `BearerAuthenticator` on the routes that need a user; the user of every command.
    package var session: SessionClaims?
    /// The client's IP address (the peer's, or for a trusted proxy the one it forwards): rate
    /// limits and log-in throttling are per client. Written out only when a route asks: most
    /// reads never do, and formatting it cost every request about a microsecond.
    package internal(set) var clientAddress: String {
        get { forwardedClient ?? peer?.ipAddress ?? "unknown" }
        set { forwardedClient = newValue }
    }
    private let peer: SocketAddress?
    private var forwardedClient: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    package var maxUploadSize: Int { JSONBody.maxBytes }

    /// Who spends the upstream quota when this request misses the cache: the account when a token
    /// says so, else the address (the fetch worker's budgets are per spender).
    var upstreamSpender: String { session.map { "user:\($0.userId)" } ?? "address:\(clientAddress)" }

    /// The session of an authenticated route (the authenticator guarantees it).
    func requireSession() throws -> SessionClaims {
        guard let session else { throw Problem.invalidToken("a bearer token is required") }
        return session
    }
}
