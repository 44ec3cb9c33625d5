import Foundation
import Hummingbird
import NIOCore
import Logging
import PantryDomain
import PantryLog
import PantryBus
import PantryHTTP
import PantryWire
import Prometheus
import ServiceLifecycle
import ZeroMQ
import PantryTokens
import PantryBounded

/// The `pantry api` process: Hummingbird in front, the core and its event feed behind, over ZeroMQ.
package struct APIServer {
    package struct Configuration: Sendable {
        package var host = "127.0.0.1"
        package var port = 8080
        /// Where the token key (unless `tokenKey`) and the access log are kept.
        package var dataDirectory: URL
        package var endpoints: BusEndpoints
        /// How the API's feed follower reads the log (`APIFeed`).
        package var log: LogAccess
        /// How long a command may wait for the core before the client gets a 503.
        package var coreTimeout: Duration = .seconds(5)
        /// How long a read may wait for a worker; covers a read-your-writes wait (2 s) with room to spare.
        package var queryTimeout: Duration = .seconds(5)
        /// How long recipe requests may wait for the fetch worker, which may be calling an upstream.
        package var fetchTimeout: Duration = .seconds(20)
        /// How long a recipe answer the fetch worker says stays the same (the catalog's, or a cached
        /// one until its age changes) is given again without asking (`PANTRY_RECIPE_REUSE`, seconds).
        package var recipeReuse: Duration = .seconds(1)
        package var tokenLifetimeSeconds: Int64 = 24 * 3600
        /// The token key shared by every API process (`PANTRY_TOKEN_KEY`); nil for the data directory's own.
        package var tokenKey: String?
        /// scrypt's cost as log2 N. 15 (32 MiB, ~90 ms) protects real accounts; a load test that
        /// registers thousands of throwaway users may lower it to 10.
        package var passwordLogN = 15
        /// The longest a log-in should wait for the hashing pool: its queue is as long as the hashes
        /// it finishes in this time (measured at start), the rest answered 503 `busy` at once.
        package var hashingQueueWait: Duration = .seconds(5)
        /// Log-ins and registrations per client address, and overall, before any password is hashed.
        package var loginLimitPerClient = RateLimit(perSecond: 2, burst: 20)
        package var loginLimitOverall = RateLimit(perSecond: 100, burst: 200)
        /// Keep-alive connections with no request for this long are closed.
        package var idleTimeout: TimeAmount = .seconds(60)
        /// Seconds for a request's head and for its body, and the most connections open at once.
        package var headerTimeout: TimeAmount = .seconds(10)
        package var bodyTimeout: TimeAmount = .seconds(30)
        package var maxConnections = 4_096
        /// Connections open at once from one address, trusted proxies aside.
        package var maxConnectionsPerAddress = 256
        /// Where the access log goes (one line per request); nil for none, only the summaries.
        package var accessLogPath: String?
        /// Web origins allowed to call the API from a browser (CORS); none by default.
        package var corsOrigins: Set<String> = []
        /// The origins of `PANTRY_CORS_ORIGINS`: separated by commas, spaces around them ignored.
        package static func origins(_ text: String) -> Set<String> {
            Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        /// Load balancers whose `X-Forwarded-For` names the client (`PANTRY_TRUSTED_PROXIES`).
        package var trustedProxies: Set<String> = []
        /// Where the documentation renderer's script is (ops/setup puts it there).
        package var docsAssets = ".cache/docs"
        /// How often a live stream that has nothing to say says so, keeping proxies from closing it.
        package var liveHeartbeat: Duration = .seconds(15)
        /// Where the read models are kept between runs (`APISnapshotFile`); nil for nowhere.
        package var snapshotPath: String?
        /// Positions between two snapshots of the read models.
        package var snapshotEvery: Int64 = 100_000
        /// How reset links reach people (`PANTRY_SMTP_URL`); nil: `POST /v1/password-resets` is 503.
        package var passwordResetMail: PasswordResetMail?

        /// What `PantryHTTP` is told of it: the routes', the kept state's and the server's settings.
        package var http: HTTPSettings {
            HTTPSettings(host: host, port: port, recipeReuse: recipeReuse, tokenLifetimeSeconds: tokenLifetimeSeconds,
                         passwordLogN: passwordLogN, hashingQueueWait: hashingQueueWait, loginLimitPerClient: loginLimitPerClient,
                         loginLimitOverall: loginLimitOverall, idleTimeout: idleTimeout, headerTimeout: headerTimeout,
                         bodyTimeout: bodyTimeout, maxConnections: maxConnections, maxConnectionsPerAddress: maxConnectionsPerAddress,
                         accessLogPath: accessLogPath, corsOrigins: corsOrigins, trustedProxies: trustedProxies,
                         docsAssets: docsAssets, liveHeartbeat: liveHeartbeat, passwordResetMail: passwordResetMail,
                         network: endpoints.protection.rawValue)
        }

        package init(dataDirectory: URL, endpoints: BusEndpoints, log: LogAccess) {
            self.dataDirectory = dataDirectory
            self.endpoints = endpoints
            self.log = log
            accessLogPath = dataDirectory.appendingPathComponent("access.log").path
            snapshotPath = dataDirectory.appendingPathComponent("api.snapshot").path
        }
    }

    let configuration: Configuration
    /// Where the process's metrics are kept: the executable bootstraps the metrics system with it
    /// (a library does not), and `/metrics` renders it.
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    package init(configuration: Configuration, registry: PrometheusCollectorRegistry, logger: Logger) {
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
    }

    /// Serves until SIGTERM or SIGINT, then finishes the requests in flight and stops.
    package func run() async throws {
        let parts = try await APIParts(configuration: configuration, logger: logger)
        // Whatever a service left blocked on a socket (none should be) is let go as the process ends.
        defer { parts.context.shutdown() }
        let settings = configuration.http
        let router = buildRouter(parts.ports, state: parts.state, settings: settings, registry: registry, logger: logger)
        let app = buildApplication(router: router, settings: settings, logger: logger)
        // The process's one group. On SIGTERM or SIGINT it shuts the services down in reverse order:
        // the HTTP server stops accepting and finishes the requests in flight, which still reach
        // the core, the workers and the fetch worker; then the access log writes its last lines,
        // the connections fail what still waits, and the feed's follower stops. The live streams
        // end first, or the server would wait for them forever.
        let services = ServiceGroup(configuration: .init(
            services: parts.servicesBeforeServer + [app] + parts.servicesAfterServer, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await services.run()
        logger.info("api stopped")
    }
}
