import Hummingbird
import Logging

/// The HTTP server in front of `router`: HEAD answered as GET, the connection limits
/// (`ConnectionGuard`) on every channel, and a live stream served from the channel's pipeline
/// with no task of its own (`LiveStreamHandler`).
package func buildApplication(router: Router<APIRequestContext>, settings: HTTPSettings, logger: Logger) -> some ApplicationProtocol {
    let connections = ConnectionGuard.OpenConnections()
    let limits = ConnectionGuard.Limits(headerTimeout: settings.headerTimeout, bodyTimeout: settings.bodyTimeout,
                                        maxConnections: settings.maxConnections,
                                        maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
                                        uncappedAddresses: settings.trustedProxies)
    let responder = HeadAsGet(inner: router.buildResponder())
    let live = LiveStreamHandler.Serving(logger: logger) { try await responder.respond(to: $0, context: $1) }
    return Application(
        responder: responder,
        server: .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, open: connections), LiveStreamHandler(serving: live)],
            idleTimeout: settings.idleTimeout)),
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
        onServerRunning: { channel in
            logger.info("api serving", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
        },
        logger: logger)
}
