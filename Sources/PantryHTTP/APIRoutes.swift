import Hummingbird
import PantryBounded
import Prometheus

/// Every route of the API, built from its parts: the one place a route group is registered. A
/// group is a struct with `register(on:)` over the ports it needs; what needs a user goes on
/// `authenticated`, what anyone may browse on the router itself.
package func buildRouter(_ parts: APIParts, registry: PrometheusCollectorRegistry) -> Router<APIRequestContext> {
    let configuration = parts.configuration
    let (feed, queries, recipes, accounts, revocations) = (parts.feed, parts.queries, parts.recipes, parts.accounts, parts.revocations)
    let router = Router(context: APIRequestContext.self)
    if !configuration.trustedProxies.isEmpty { router.add(middleware: ForwardedClient(trustedProxies: configuration.trustedProxies)) }
    if !configuration.corsOrigins.isEmpty { router.add(middleware: CrossOrigin(origins: configuration.corsOrigins)) }
    let routeMethods = RouteMethods()
    router.add(middleware: AccessLogMiddleware(accessLog: parts.accessLog, routes: routeMethods))
    let authenticator = BearerAuthenticator(signer: parts.signer, revocations: revocations, accounts: accounts, feed: feed)
    let authenticated = router.group().add(middleware: authenticator)
    let submitter = CommandSubmitter(core: parts.core)

    HealthRoutes(feed: feed, queries: queries, recipes: recipes, registry: registry, network: configuration.endpoints.protection)
        .register(on: router)
    AccountRoutes(submitter: submitter, accounts: accounts, feed: feed, hasher: parts.hasher,
                  operatorHasher: PasswordHasher(logN: PasswordHasher.logNRange.lowerBound), signer: parts.signer,
                  operatorProofs: OperatorProofs(signer: parts.signer, trustedProxies: configuration.trustedProxies, logger: parts.logger),
                  revocations: revocations,
                  throttle: SharedLoginThrottle(), perClient: RateLimiter(configuration.loginLimitPerClient),
                  overall: RateLimiter(configuration.loginLimitOverall),
                  // The known devices' lane: a budget as large as everyone's, of its own.
                  devices: KnownDevices(signer: parts.signer, limit: configuration.loginLimitOverall), decoyHash: parts.decoyHash,
                  leaderboard: parts.leaderboard, resetMail: configuration.passwordResetMail, resetTokens: parts.resetTokens)
        .register(public: router, authenticated: authenticated)
    // The commands of a signed-in user.
    CommandRoutes(submitter: submitter, lookup: RecipeFactsLookup(recipes: recipes)).register(on: authenticated)
    HouseholdRoutes(submitter: submitter, households: parts.households, accounts: accounts, feed: feed, codes: parts.inviteCodes)
        .register(on: authenticated)
    LiveRoutes(live: parts.live, feed: feed, households: parts.households, isEnded: { [revocations, accounts] claims in
        revocations.isRevoked(claims.tokenId) || accounts.credentialsGeneration(of: claims.userId) != claims.credentialsGeneration
    }).register(on: authenticated)
    // Browsing needs no account: recipes, the leaderboard and experiences are public.
    let liked = LikedRecipes(queries: queries, recipes: recipes)
    ReadRoutes(queries: queries, feed: feed, leaderboard: parts.leaderboard, recipes: recipes, liked: liked, counted: parts.counted,
               households: parts.households)
        .register(public: router.group(), authenticated: authenticated)
    var signedInIfAny = authenticator
    signedInIfAny.optional = true
    RecipeRoutes(recipes: recipes, liked: liked).register(on: router.group().add(middleware: signedInIfAny))

    // Added after every route, so it wraps only what no route matches: an API request no longer
    // passes through it and the file middleware inside it (two more async calls each).
    if let web = WebApp<APIRequestContext>.root {
        router.add(middleware: WebApp(root: web, docsAssets: configuration.docsAssets, logger: parts.logger))
    } else {
        parts.logger.error("the web app's files are missing from the build; / answers 404")
    }
    routeMethods.learn(router.routes)
    return router
}
