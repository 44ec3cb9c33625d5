import Hummingbird
import Logging

/// The HTTP server in front of `router`: a live stream's request in a task of its own
/// (`LiveRequestTask`), HEAD answered as GET, and the connection limits (`ConnectionGuard`) on every channel.
package func buildApplication(router: Router<APIRequestContext>, settings: HTTPSettings, logger: Logger) -> some ApplicationProtocol {
    let connections = ConnectionGuard.OpenConnections()
    let limits = ConnectionGuard.Limits(headerTimeout: settings.headerTimeout, bodyTimeout: settings.bodyTimeout,
                                        maxConnections: settings.maxConnections,
                                        maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
                                        uncappedAddresses: settings.trustedProxies)
    return Application(
        responder: LiveRequestTask(inner: HeadAsGet(inner: router.buildResponder())),
        server: .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, open: connections)],
            idleTimeout: settings.idleTimeout)),
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
        onServerRunning: { channel in
            logger.info("api serving", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
        },
        logger: logger)
}
