import Hummingbird
import Logging
import PantryBounded
import PantryWeb
import Prometheus

/// Every route of the API, built from its ports and what it keeps: the one place a route group is
/// registered. A group is a struct with `register(on:)` over the ports it needs; what needs a user
/// goes on `authenticated`, what anyone may browse on the router itself.
package func buildRouter(_ ports: HTTPPorts, state: APIState, settings: HTTPSettings,
                         registry: PrometheusCollectorRegistry, logger: Logger) -> Router<APIRequestContext> {
    let feed = ports.feed
    let queries = WorkerQueries(port: ports.queries)
    let recipes = RecipeSource(port: ports.recipes, reuse: settings.recipeReuse)
    let (accounts, revocations) = (state.accounts, state.revocations)
    let router = Router(context: APIRequestContext.self)
    if !settings.trustedProxies.isEmpty { router.add(middleware: ForwardedClient(trustedProxies: settings.trustedProxies)) }
    if !settings.corsOrigins.isEmpty { router.add(middleware: CrossOrigin(origins: settings.corsOrigins)) }
    let routeMethods = RouteMethods()
    router.add(middleware: AccessLogMiddleware(accessLog: state.accessLog, routes: routeMethods))
    let authenticator = BearerAuthenticator(signer: state.signer, revocations: revocations, accounts: accounts, feed: feed)
    let authenticated = router.group().add(middleware: authenticator)
    let submitter = CommandSubmitter(core: ports.commands)

    HealthRoutes(feed: feed, queries: queries, recipes: recipes, registry: registry, network: settings.network)
        .register(on: router)
    AccountRoutes(submitter: submitter, accounts: accounts, feed: feed, hasher: state.hasher,
                  operatorHasher: PasswordHasher(logN: PasswordHasher.logNRange.lowerBound), signer: state.signer,
                  operatorProofs: OperatorProofs(signer: state.signer, trustedProxies: settings.trustedProxies, logger: logger),
                  revocations: revocations,
                  throttle: SharedLoginThrottle(), perClient: RateLimiter(settings.loginLimitPerClient),
                  overall: RateLimiter(settings.loginLimitOverall),
                  // The known devices' lane: a budget as large as everyone's, of its own.
                  devices: KnownDevices(signer: state.signer, limit: settings.loginLimitOverall), decoyHash: state.decoyHash,
                  leaderboard: state.leaderboard, resetMail: settings.passwordResetMail, resetTokens: state.resetTokens)
        .register(public: router, authenticated: authenticated)
    // The commands of a signed-in user.
    CommandRoutes(submitter: submitter, lookup: RecipeFactsLookup(recipes: recipes)).register(on: authenticated)
    HouseholdRoutes(submitter: submitter, households: state.households, accounts: accounts, feed: feed, codes: state.inviteCodes)
        .register(on: authenticated)
    LiveRoutes(live: state.live, feed: feed, households: state.households, isEnded: { [revocations, accounts] claims in
        revocations.isRevoked(claims.tokenId) || accounts.credentialsGeneration(of: claims.userId) != claims.credentialsGeneration
    }).register(on: authenticated)
    // Browsing needs no account: recipes, the leaderboard and experiences are public.
    let liked = LikedRecipes(queries: queries, recipes: recipes)
    ReadRoutes(queries: queries, feed: feed, leaderboard: state.leaderboard, recipes: recipes, liked: liked, counted: state.counted,
               households: state.households)
        .register(public: router.group(), authenticated: authenticated)
    var signedInIfAny = authenticator
    signedInIfAny.optional = true
    RecipeRoutes(recipes: recipes, liked: liked).register(on: router.group().add(middleware: signedInIfAny))

    // Added after every route, so it wraps only what no route matches: an API request no longer
    // passes through it and the file middleware inside it (two more async calls each).
    if let web = WebFiles.root {
        router.add(middleware: WebApp(root: web, docsAssets: settings.docsAssets, logger: logger))
    } else {
        logger.error("the web app's files are missing from the build; / answers 404")
    }
    routeMethods.learn(router.routes)
    return router
}
