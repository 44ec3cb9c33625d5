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
    private let channel: any Channel
    /// Set by `LiveStreamHandler` on the live requests it answers: where the live route leaves its stream.
    var liveHandoff: LiveStreamHandoff?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
        channel = source.channel
    }

    /// Closes the request's connection now, whatever is being written on it (a live stream whose
    /// client stopped reading).
    var closeConnection: @Sendable () -> Void {
        if let liveHandoff { return liveHandoff.closeConnection }
        return { [channel] in channel.close(promise: nil) }
    }

    /// Caps what the kernel buffers for the connection's writes (Linux grows it to 4 MiB for a
    /// client that does not read), so that a long-lived response to a slow client holds little.
    func limitSendBuffer(to bytes: Int) {
        channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: .init(bytes)).whenFailure { _ in }
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
