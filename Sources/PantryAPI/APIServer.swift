import Foundation
import Hummingbird
import NIOCore
import Logging
import PantryDomain
import PantryLog
import Metrics
import PantryBus
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

        package init(dataDirectory: URL, endpoints: BusEndpoints, log: LogAccess) {
            self.dataDirectory = dataDirectory
            self.endpoints = endpoints
            self.log = log
            accessLogPath = dataDirectory.appendingPathComponent("access.log").path
            snapshotPath = dataDirectory.appendingPathComponent("api.snapshot").path
        }
    }

    let configuration: Configuration
    let logger: Logger

    package init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until SIGTERM or SIGINT, then finishes the requests in flight and stops.
    package func run() async throws {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let directoryURL = configuration.dataDirectory
        let tokenKey = try TokenSigner.loadKey(dataDirectory: directoryURL, configured: configuration.tokenKey)
        let signer = TokenSigner(key: tokenKey, lifetimeSeconds: configuration.tokenLifetimeSeconds)
        let revocations = RevocationList()
        let hasher = PasswordHasher(logN: configuration.passwordLogN)
        let hashingStarted = ContinuousClock.now
        let decoyHash = try await hasher.hash(RandomIdentifier.make(), for: nil)
        let oneHash = ContinuousClock.now - hashingStarted
        let queued = PasswordHasher.limitQueue(toWait: configuration.hashingQueueWait, oneHash: oneHash)
        logger.info("password hashing", metadata: ["milliseconds": "\(oneHash / .milliseconds(1))", "queue": "\(queued)"])

        let context = try configuration.endpoints.makeContext(logger: logger)
        // On the core's host the log is read directly (once the core has made it), so gaps
        // are repaired even while the core restarts; elsewhere the core's log service answers,
        // with sealed fields opened, and no key file is needed.
        let endpoints = configuration.endpoints
        // Accounts are read back from the log when first needed, on a reader of their own.
        let registrations = switch configuration.log {
        case .direct(let openLog, let vault): RegistrationReader(openLog: openLog, keys: vault)
        case .service: RegistrationReader(openLog: { RemoteEventStore(context: context, endpoint: endpoints.log) }, keys: nil)
        }
        let accounts = AccountDirectory(revocations: revocations, digester: LoginDigester(tokenKey: tokenKey),
                                        registrations: registrations)
        let leaderboard = LeaderboardReadModel(accounts: accounts)
        let households = HouseholdDirectory()
        let live = LiveStreams(settings: .init(heartbeat: configuration.liveHeartbeat, maxStreams: max(1, configuration.maxConnections / 2)),
                               leaderboard: leaderboard, households: households, logger: logger)
        let feed: APIFeed
        let snapshots = configuration.snapshotPath.map { [logger = self.logger] in
            APISnapshotFile(path: $0, every: configuration.snapshotEvery, accounts: accounts, revocations: revocations,
                            leaderboard: leaderboard, households: households, logger: logger)
        }
        let counted: CountedIngredientsRead
        switch configuration.log {
        case .direct(let openLog, let vault):
            counted = CountedIngredientsRead(open: openLog)
            feed = try APIFeed(models: [accounts, leaderboard, households], live: live, keys: vault, context: context, feed: endpoints.events,
                               highWaterMark: endpoints.feedHighWaterMark, openLog: openLog, openHeadReader: openLog,
                               snapshots: snapshots, logger: logger)
        case .service:
            let remote = RemoteEventStore(context: context, endpoint: endpoints.log)
            // A socket of its own: a read waits neither for the follower's catch-up nor for a head read.
            let points = RemoteEventStore(context: context, endpoint: endpoints.log, timeout: .seconds(1))
            counted = CountedIngredientsRead(open: { points })
            feed = try APIFeed(models: [accounts, leaderboard, households], live: live, keys: nil, context: context, feed: endpoints.events,
                               highWaterMark: endpoints.feedHighWaterMark, openLog: { remote }, openHeadReader: {
                RemoteEventStore(context: context, endpoint: endpoints.log, timeout: .milliseconds(500))
            }, snapshots: snapshots, logger: logger)
        }
        // Before serving: the first leaderboard read is answered from the snapshot.
        await feed.restoreSnapshot()
        let core = try CoreConnection(context: context, endpoint: configuration.endpoints.commands,
                                      timeout: configuration.coreTimeout, logger: logger)
        let queries = try WorkerQueries(context: context, endpoints: endpoints, timeout: configuration.queryTimeout,
                                        logger: logger)
        let recipes = try RecipeSource(context: context, endpoint: endpoints.fetch,
                                       timeout: configuration.fetchTimeout, reuse: configuration.recipeReuse, logger: logger)
        // Whatever a service left blocked on a socket (none should be) is let go as the process ends.
        defer { context.shutdown() }

        let router = Router(context: APIRequestContext.self)
        if !configuration.trustedProxies.isEmpty { router.add(middleware: ForwardedClient(trustedProxies: configuration.trustedProxies)) }
        let accessLog = try AccessLog(path: configuration.accessLogPath, logger: logger)
        if !configuration.corsOrigins.isEmpty { router.add(middleware: CrossOrigin(origins: configuration.corsOrigins)) }
        let routeMethods = RouteMethods()
        router.add(middleware: AccessLogMiddleware(accessLog: accessLog, routes: routeMethods))
        let authenticator = BearerAuthenticator(signer: signer, revocations: revocations, accounts: accounts, feed: feed)
        let authenticated = router.group().add(middleware: authenticator)
        let submitter = CommandSubmitter(core: core)
        HealthRoutes(feed: feed, queries: queries, recipes: recipes, registry: registry, network: endpoints.protection).register(on: router)
        AccountRoutes(submitter: submitter, accounts: accounts, feed: feed, hasher: hasher,
                      operatorHasher: PasswordHasher(logN: PasswordHasher.logNRange.lowerBound), signer: signer,
                      operatorProofs: OperatorProofs(signer: signer, trustedProxies: configuration.trustedProxies, logger: logger),
                      revocations: revocations,
                      throttle: SharedLoginThrottle(), perClient: RateLimiter(configuration.loginLimitPerClient),
                      overall: RateLimiter(configuration.loginLimitOverall), decoyHash: decoyHash, leaderboard: leaderboard)
            .register(public: router, authenticated: authenticated)
        CommandRoutes(submitter: submitter, lookup: RecipeFactsLookup(recipes: recipes)).register(on: authenticated)
        HouseholdRoutes(submitter: submitter, households: households, accounts: accounts, feed: feed,
                        codes: InviteCodes(tokenKey: tokenKey)).register(on: authenticated)
        LiveRoutes(live: live, feed: feed, households: households, isEnded: { [revocations, accounts] claims in
            revocations.isRevoked(claims.tokenId) || accounts.credentialsGeneration(of: claims.userId) != claims.credentialsGeneration
        }).register(on: authenticated)
        // Browsing needs no account: recipes, the leaderboard and experiences are public.
        let liked = LikedRecipes(queries: queries, recipes: recipes)
        ReadRoutes(queries: queries, feed: feed, leaderboard: leaderboard, recipes: recipes, liked: liked, counted: counted,
                   households: households)
            .register(public: router.group(), authenticated: authenticated)
        var signedInIfAny = authenticator
        signedInIfAny.optional = true
        RecipeRoutes(recipes: recipes, liked: liked).register(on: router.group().add(middleware: signedInIfAny))
        // Added after every route, so it wraps only what no route matches: an API request no longer
        // passes through it and the file middleware inside it (two more async calls each).
        if let web = WebApp<APIRequestContext>.root {
            router.add(middleware: WebApp(root: web, docsAssets: configuration.docsAssets, logger: logger))
        } else {
            logger.error("the web app's files are missing from the build; / answers 404")
        }
        routeMethods.learn(router.routes)

        let logger = logger
        let connections = ConnectionGuard.OpenConnections()
        let limits = ConnectionGuard.Limits(headerTimeout: configuration.headerTimeout, bodyTimeout: configuration.bodyTimeout,
                                            maxConnections: configuration.maxConnections,
                                            maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
                                            uncappedAddresses: configuration.trustedProxies)
        let app = Application(
            responder: HeadAsGet(inner: router.buildResponder()),
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(limits: limits, open: connections)],
                idleTimeout: configuration.idleTimeout)),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                logger.info("api serving", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
            },
            logger: logger)
        // The process's one group. On SIGTERM or SIGINT it shuts the services down in reverse order:
        // the HTTP server stops accepting and finishes the requests in flight, which still reach
        // the core, the workers and the fetch worker; then the access log writes its last lines,
        // the connections fail what still waits, and the feed's follower stops. The live streams
        // end first, or the server would wait for them forever.
        let services = ServiceGroup(configuration: .init(
            services: [feed, core, queries, recipes, accessLog, app, live], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await services.run()
        logger.info("api stopped")
    }
}
