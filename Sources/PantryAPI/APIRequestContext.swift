import Hummingbird

/// The per-request context: Hummingbird's core storage plus the session a bearer token proved.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `BearerAuthenticator` on the routes that need a user; the user of every command.
    public var session: SessionClaims?
    /// The client's IP address (the peer's, or for a trusted proxy the one it forwards): rate
    /// limits and log-in throttling are per client.
    public internal(set) var clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    public var maxUploadSize: Int { JSONBody.maxBytes }

    /// The session of an authenticated route (the authenticator guarantees it).
    func requireSession() throws -> SessionClaims {
        guard let session else { throw Problem.invalidToken("a bearer token is required") }
        return session
    }
}
