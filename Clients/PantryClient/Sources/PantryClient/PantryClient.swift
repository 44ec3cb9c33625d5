import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// Pantry's API for an app: the generated client (`api`, every operation of schemas/openapi.yaml)
/// with what every app needs around it: the session kept and refreshed, retries with backoff, one
/// Idempotency-Key per user action reused on every retry, read-your-writes by default, the live
/// stream and problems as `PantryError`.
public final class PantryClient: Sendable {
    public struct Configuration: Sendable {
        /// Where the API answers, e.g. https://pantry.example.org.
        public var baseURL: URL
        public var sessionStore: any SessionStore
        public var retryPolicy: RetryPolicy
        /// A token that expires within this is refreshed before it is used (tokens last 24 hours).
        public var refreshBefore: Duration
        /// Reads wait until they show this client's own last command (`?after=`): on by default,
        /// so a screen never misses what its user just did.
        public var readYourWrites: Bool
        public var urlSession: URLSession
        /// What carries the requests; nil: `URLSession` (`urlSession`). On Linux, swift-corelibs'
        /// URLSession costs about 0.9 ms of CPU a request in thread hops (docs/benchmarks/client.md),
        /// so a Linux program that reads a lot passes another, such as swift-openapi-async-http-client's
        /// `AsyncHTTPClientTransport`. The live stream always goes through `urlSession`.
        public var transport: (any ClientTransport)?

        public init(baseURL: URL, sessionStore: any SessionStore = MemorySessionStore(), retryPolicy: RetryPolicy = .init(),
                    refreshBefore: Duration = .seconds(600), readYourWrites: Bool = true, urlSession: URLSession = .shared,
                    transport: (any ClientTransport)? = nil) {
            self.baseURL = baseURL
            self.sessionStore = sessionStore
            self.retryPolicy = retryPolicy
            self.refreshBefore = refreshBefore
            self.readYourWrites = readYourWrites
            self.urlSession = urlSession
            self.transport = transport
        }
    }

    /// The generated client, with this client's session, retries and problems: for what the
    /// methods here do not wrap. A command sent through it needs its own Idempotency-Key.
    public let api: Client
    let configuration: Configuration
    let keeper: SessionKeeper
    private let written = WrittenPosition()

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let transport = configuration.transport ?? URLSessionTransport(configuration: .init(session: configuration.urlSession))
        let baseURL = configuration.baseURL
        // A refresh is sent once, never retried: the server ends the token it is asked with, so a
        // second try after a lost answer could only fail.
        keeper = SessionKeeper(store: configuration.sessionStore, refreshBefore: configuration.refreshBefore) { token in
            let refresher = Client(serverURL: baseURL, transport: transport, middlewares: [ProblemMiddleware(), BearerMiddleware(token: token)])
            do {
                return PantrySession(try await refresher.refreshSession().created.body.json)
            } catch let error as ClientError where (error.underlyingError as? PantryError)?.code == .invalidToken {
                return nil
            }
        }
        api = Client(serverURL: baseURL, transport: transport,
                     middlewares: [ProblemMiddleware(), RetryMiddleware(policy: configuration.retryPolicy),
                                   SessionMiddleware(keeper: keeper)])
    }

    public convenience init(baseURL: URL, sessionStore: any SessionStore = MemorySessionStore()) {
        self.init(Configuration(baseURL: baseURL, sessionStore: sessionStore))
    }

    // MARK: Sessions

    /// The session this client acts with, if signed in.
    public var session: PantrySession? { get async { await keeper.current } }

    /// Registers an account and signs in with it.
    @discardableResult
    public func register(username: String, email: String, password: String) async throws(PantryError) -> PantrySession {
        let answer = try await call {
            try await api.register(body: .json(.init(username: username, email: email, password: password))).created.body.json
        }
        let session = PantrySession(token: answer.token, expiresAt: Int64(answer.expiresAt), userId: answer.userId, username: answer.username)
        try await keep(session)
        try keepDeviceToken(answer.deviceToken)
        written.advance(to: Int64(answer.position))
        return session
    }

    /// Signs in by username (or any look-alike of it).
    @discardableResult
    public func signIn(username: String, password: String) async throws(PantryError) -> PantrySession {
        try await signIn(.UsernameCredentials(.init(username: username, password: password)))
    }

    /// Signs in by email.
    @discardableResult
    public func signIn(email: String, password: String) async throws(PantryError) -> PantrySession {
        try await signIn(.EmailCredentials(.init(email: email, password: password)))
    }

    /// With this device's token from its last log-in, if any (`SessionStore.loadDeviceToken`), and
    /// keeping the one answered for the next.
    private func signIn(_ credentials: Components.Schemas.Credentials) async throws(PantryError) -> PantrySession {
        let device = try? configuration.sessionStore.loadDeviceToken()
        let answer = try await call {
            try await api.logIn(headers: .init(xPantryDevice: device), body: .json(credentials)).created.body.json
        }
        let session = PantrySession(answer)
        try await keep(session)
        try keepDeviceToken(answer.deviceToken)
        return session
    }

    private func keepDeviceToken(_ token: String?) throws(PantryError) {
        guard let token else { return }
        do { try configuration.sessionStore.saveDeviceToken(token) } catch { throw .unreachable("the device token could not be stored: \(error)") }
    }

    /// Ends the session on the server (every API process within a second) and forgets it here.
    public func signOut() async throws(PantryError) {
        do {
            _ = try await call { try await api.logOut().noContent }
        } catch {
            // Forgotten here all the same: the user asked to be signed out.
            try await keep(nil)
            throw error
        }
        try await keep(nil)
    }

    /// A forgotten password: asks for a link that sets a new one, mailed to `email` if an account
    /// has it. The answer is the same either way (it tells nobody which addresses are registered);
    /// the link works once, for 30 minutes.
    public func requestPasswordReset(email: String) async throws(PantryError) {
        _ = try await call { try await api.requestPasswordReset(body: .json(.init(email: email))).accepted }
    }

    /// Sets a new password with the `token` of a reset link (`.../#/reset?token=...`): every
    /// session of the account ends, and this client is signed in with a new one. A link used
    /// already is `reset_token_used`, an old one `reset_token_expired`.
    @discardableResult
    public func resetPassword(token: String, newPassword: String) async throws(PantryError) -> PantrySession {
        let session = try await call {
            PantrySession(try await api.resetPassword(body: .json(.init(token: token, newPassword: newPassword))).ok.body.json)
        }
        try await keep(session)
        return session
    }

    private func keep(_ session: PantrySession?) async throws(PantryError) {
        do { try await keeper.replace(with: session) } catch { throw .unreachable("the session could not be stored: \(error)") }
    }

    // MARK: Commands

    /// The log position of this client's last accepted command: what reads wait for.
    public var lastWrittenPosition: Int64 { written.value }

    /// Sends one user action. `idempotencyKey` names the action: every retry of it (here, after a
    /// lost connection, or from `OfflineQueue` after a restart) sends the same key, so the server
    /// applies it once and answers the first outcome again.
    @discardableResult
    public func send(_ command: PantryCommand, idempotencyKey: String = UUID().uuidString) async throws(PantryError) -> Accepted {
        let key = idempotencyKey
        let answer: Components.Responses.Accepted = try await call {
            switch command {
            case .saveFavourite(let recipeId):
                try await api.saveFavourite(path: .init(recipeId: recipeId), headers: .init(idempotencyKey: key)).created
            case .removeFavourite(let recipeId):
                try await api.removeFavourite(path: .init(recipeId: recipeId), headers: .init(idempotencyKey: key)).ok
            case .addGrocery(let ingredient, let amount, let unit, let recipeId):
                try await api.addGrocery(headers: .init(idempotencyKey: key),
                                         body: .json(.init(ingredient: ingredient, amount: amount, unit: unit, recipeId: recipeId))).created
            case .checkGrocery(let item, let checked):
                try await api.checkGrocery(path: .init(ingredient: item), headers: .init(idempotencyKey: key),
                                           body: .json(.init(checked: checked))).ok
            case .removeGrocery(let item):
                try await api.removeGrocery(path: .init(ingredient: item), headers: .init(idempotencyKey: key)).ok
            case .adjustCart(let recipeId, let delta):
                try await api.adjustCart(headers: .init(idempotencyKey: key),
                                         body: .json(.init(recipeId: recipeId, delta: delta > 0 ? .case1(delta) : .case2(delta)))).ok
            case .startCooking(let recipeId, let minutes):
                try await api.startCooking(path: .init(recipeId: recipeId), headers: .init(idempotencyKey: key),
                                           body: .json(.init(minutes: minutes))).created
            case .useOwnedIngredient(let recipeId, let ingredient):
                try await api.useOwnedIngredient(headers: .init(idempotencyKey: key),
                                                 body: .json(.init(recipeId: recipeId, ingredient: ingredient))).created
            case .writeExperience(let recipeId, let text):
                try await api.writeExperience(path: .init(recipeId: recipeId), headers: .init(idempotencyKey: key),
                                              body: .json(.init(text: text))).created
            }
        }
        let body = try await call { try answer.body.json }
        let accepted = Accepted(position: Int64(body.position), positions: body.positions.map(Int64.init),
                                replayed: answer.headers.idempotentReplayed != nil)
        written.advance(to: accepted.position)
        return accepted
    }

    // MARK: Reads (each waits for this client's last command unless `readYourWrites` is off)

    /// `?after=` for a read: this client's last command, if any.
    var after: Int? {
        guard configuration.readYourWrites, written.value > 0 else { return nil }
        return Int(written.value)
    }

    public func me() async throws(PantryError) -> Operations.Me.Output.Ok.Body.JsonPayload {
        try await call { try await api.me(query: .init(after: after)).ok.body.json }
    }

    /// Saved recipes, newest first; with `matching`, those whose title contains it. `cursor`: a page's `next`.
    public func favourites(matching text: String? = nil, cursor: Int? = nil) async throws(PantryError)
        -> Operations.ListFavourites.Output.Ok.Body.JsonPayload {
        try await call { try await api.listFavourites(query: .init(q: text, after: after, cursor: cursor)).ok.body.json }
    }

    public func favouriteSuggestion() async throws(PantryError) -> Operations.FavouriteSuggestion.Output.Ok.Body.JsonPayload {
        try await call { try await api.favouriteSuggestion(query: .init(after: after)).ok.body.json }
    }

    public func groceries(cursor: Int? = nil) async throws(PantryError) -> Operations.ListGroceries.Output.Ok.Body.JsonPayload {
        try await call { try await api.listGroceries(query: .init(after: after, cursor: cursor)).ok.body.json }
    }

    public func cart(cursor: Int? = nil) async throws(PantryError) -> Operations.Cart.Output.Ok.Body.JsonPayload {
        try await call { try await api.cart(query: .init(after: after, cursor: cursor)).ok.body.json }
    }

    /// What the user is cooking (their timers, newest first), apart from the cart.
    public func cooking() async throws(PantryError) -> Operations.Cooking.Output.Ok.Body.JsonPayload {
        try await call { try await api.cooking(query: .init(after: after)).ok.body.json }
    }

    /// The recipe's ingredients that already earned this user a point.
    public func countedIngredients(recipeId: String) async throws(PantryError) -> Operations.CountedIngredients.Output.Ok.Body.JsonPayload {
        try await call { try await api.countedIngredients(path: .init(recipeId: recipeId), query: .init(after: after)).ok.body.json }
    }

    public func experiences(recipeId: String, limit: Int? = nil) async throws(PantryError) -> Operations.ListExperiences.Output.Ok.Body.JsonPayload {
        try await call { try await api.listExperiences(path: .init(recipeId: recipeId), query: .init(limit: limit, after: after)).ok.body.json }
    }

    public func leaderboard(top limit: Int? = nil) async throws(PantryError) -> Operations.LeaderboardTop.Output.Ok.Body.JsonPayload {
        try await call { try await api.leaderboardTop(query: .init(limit: limit, after: after)).ok.body.json }
    }

    /// This user's points and rank.
    public func myRank() async throws(PantryError) -> Components.Schemas.LeaderboardEntry {
        try await call { try await api.leaderboardMe(query: .init(after: after)).ok.body.json.result }
    }

    // MARK: Recipes (public; answered from the provider, the cache or the catalog)

    /// Recipes with all of 1 to 5 ingredients, fewest missing first.
    public func recipes(withIngredients ingredients: [String], number: Int? = nil) async throws(PantryError) -> Components.Schemas.SummariesAnswer {
        try await call {
            try await api.recipesByIngredients(query: .init(ingredients: ingredients.joined(separator: ","), number: number)).ok.body.json
        }
    }

    /// Keyword search; `sections: .readyTime` also groups the page by how long each recipe takes.
    public func search(_ query: String, diet: Operations.SearchRecipes.Input.Query.DietPayload? = nil, maxReadyTime: Int? = nil,
                       offset: Int? = nil, sections: Operations.SearchRecipes.Input.Query.SectionsPayload? = nil)
        async throws(PantryError) -> Components.Schemas.SearchAnswer {
        try await call {
            try await api.searchRecipes(query: .init(query: query, diet: diet, maxReadyTime: maxReadyTime, offset: offset,
                                                     sections: sections)).ok.body.json
        }
    }

    public func recipe(id: String) async throws(PantryError) -> Components.Schemas.Recipe {
        try await call { try await api.recipeDetail(path: .init(recipeId: id)).ok.body.json.value2.payload.recipe }
    }

    /// Today's featured recipe; for a signed-in cook, the one most like what they save and cook.
    public func featuredRecipe() async throws(PantryError) -> Components.Schemas.Recipe {
        try await call { try await api.featuredRecipe().ok.body.json.value2.payload.recipe }
    }

    /// A page of the catalog in an order drawn for this browsing session; pass the answer's
    /// `cursor` for the next page ("load more"); none comes twice.
    public func feed(count: Int? = nil, cursor: String? = nil) async throws(PantryError) -> Components.Schemas.FeedAnswer {
        try await call { try await api.recipeFeed(query: .init(count: count, cursor: cursor)).ok.body.json }
    }

    public func autocomplete(_ prefix: String) async throws(PantryError) -> [String] {
        try await call { try await api.autocompleteIngredients(query: .init(prefix: .init(value1: prefix))).ok.body.json.value2.payload.suggestions }
    }

    // MARK: Live

    /// The user's changes as they are written, resuming after `position` (a change's, saved
    /// from an earlier run) or from now.
    public func live(after position: Int64? = nil) -> LiveUpdates {
        LiveUpdates(baseURL: configuration.baseURL, keeper: keeper, policy: configuration.retryPolicy, after: position)
    }

    // MARK: Errors

    /// Runs a generated call, its failure as a `PantryError`.
    func call<T>(_ work: () async throws -> T) async throws(PantryError) -> T {
        do { return try await work() } catch { throw Self.pantryError(error) }
    }

    static func pantryError(_ error: any Error) -> PantryError {
        if let error = error as? PantryError { return error }
        guard let error = error as? ClientError else { return .unexpectedAnswer(status: 0) }
        if let underlying = error.underlyingError as? PantryError { return underlying }
        if let status = error.response?.status.code { return .unexpectedAnswer(status: status) }
        return .unreachable(String(describing: error.underlyingError))
    }
}

extension PantrySession {
    init(_ session: Components.Schemas.Session) {
        self.init(token: session.token, expiresAt: Int64(session.expiresAt), userId: session.userId, username: session.username)
    }
}

/// The highest position this client's commands were written at.
final class WrittenPosition: @unchecked Sendable {
    private let lock = NSLock()
    private var position: Int64 = 0

    var value: Int64 { lock.withLock { position } }

    func advance(to written: Int64) { lock.withLock { position = max(position, written) } }
}
