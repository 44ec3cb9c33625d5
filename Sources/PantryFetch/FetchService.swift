import Curl
import Foundation
import Logging
import PantryRandom
import Synchronization
import PantryWire
import PantryBounded

/// Answers `FetchRequest`s from the cache, the embedded catalog or a rate-limited upstream.
///
/// Fresh cached answers are served without an upstream call; identical requests in flight
/// share one call; when the upstream cannot be asked (quota spent, error, timeout) the
/// cached answer of any age is served as `staleCache`, else the catalog and the recipes already
/// fetched answer as `fallback`. Transport-neutral: a transport
/// decodes a `FetchRequest`, calls `handle`, and encodes the `FetchResult`.
package actor FetchService {
    private let configuration: FetchConfiguration
    private let store: FetchStore
    private let catalog: CatalogProvider
    private let providers: [String: any RecipeProvider]
    private let images: UpstreamGate
    private let logger: Logger
    private let replies = FetchReplyCache()
    /// The upstream call under way for each key, and who waits for it.
    private var inFlight: [String: (task: Task<FetchResult, Never>, waiters: CallWaiters)] = [:]
    /// Upstream calls each client may cause: the deployment's quota is everyone's, and ten junk
    /// searches from one user once spent it for the day. Cache hits are never counted.
    private let clientBudgets: RateLimiter
    /// Upstream calls of every client together (`FetchConfiguration.overallUpstreamBudget`).
    private let overallBudget: RateLimiter?
    /// The catalog and the recipes already fetched, rebuilt from the cache at most once a minute.
    private var fallbackRecipes: (search: CatalogSearch, builtAt: Date)?
    /// The build of the fallback index under way, which every caller waits for: each waiting
    /// request used to build its own (110-140 ms each over the 3,129 imported recipes), and a
    /// burst of 350 new requests right after a restart ran into the 20 s deadline.
    private var fallbackBuild: Task<CatalogSearch, Never>?
    private var fallbackGenerator: SeededGenerator
    /// The wall clock that cached answers' ages and lifetimes and the quota's days are read from.
    /// Transfers and the caller's deadline run on real time whatever it says (libcurl does).
    private let now: @Sendable () -> Date

    /// `now` is the real clock but in tests, which move their own to expire what the cache holds.
    package init(configuration: FetchConfiguration, logger: Logger = Logger(label: "pantry.fetch"),
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.configuration = configuration
        self.logger = logger
        self.now = now
        clientBudgets = RateLimiter(configuration.upstreamCallsPerClient)
        overallBudget = configuration.overallUpstreamBudget.map { RateLimiter($0) }
        fallbackGenerator = SeededGenerator(seed: configuration.catalogSeed)
        let store = try FetchStore(path: configuration.databasePath)
        self.store = store
        let catalog = try CatalogProvider(file: configuration.catalogFile.map { URL(fileURLWithPath: $0) },
                                          imported: configuration.importedCatalogFile.map { URL(fileURLWithPath: $0) },
                                          seed: configuration.catalogSeed)
        self.catalog = catalog
        let http = HTTPClient()
        func gate(_ name: String, _ policy: LimiterPolicy, maxBodyBytes: Int = Self.maxAnswerBytes) -> UpstreamGate {
            UpstreamGate(
                provider: name, policy: policy, http: http, store: store, connectTimeout: configuration.connectTimeout,
                timeout: configuration.requestTimeout, maxBodyBytes: maxBodyBytes, logger: logger, now: now)
        }
        var providers: [String: any RecipeProvider] = [catalog.name: catalog]
        providers["mealdb"] = MealDBProvider(baseURL: configuration.mealdbURL, gate: gate("mealdb", configuration.mealdbLimits))
        if let key = configuration.spoonacularKey {
            providers["spoonacular"] = SpoonacularProvider(
                baseURL: configuration.spoonacularURL, apiKey: key, gate: gate("spoonacular", configuration.spoonacularLimits))
        }
        self.providers = providers
        // Image CDNs do not count against the recipe quota; the bucket only keeps us polite.
        images = gate("images", LimiterPolicy(dailyQuota: nil, ratePerSecond: 20, burst: 20, maxWait: 5), maxBodyBytes: 16 << 20)
        logger.info("fetch service ready", metadata: [
            "primary": "\(configuration.primary.rawValue)", "catalogRecipes": "\(catalog.count)",
            "spoonacular": "\(configuration.spoonacularKey == nil ? "off" : "on")",
        ])
    }

    /// The longest recipe answer read (JSON, once inflated): a hundred full recipes from
    /// Spoonacular's random are about 2 MiB. With 16 MiB, 1,000 answers of 64 MiB bodies and gzip
    /// bombs took the worker from 58 to 254 MiB (each transfer thread's heap kept what its last
    /// cut-off body had held).
    static let maxAnswerBytes = 8 << 20

    /// `client` names who asks (the API passes the caller's address): the upstream calls it may
    /// cause are limited; nil for trusted callers (benchmarks, tests of the worker alone).
    /// `deadline` is how many seconds the caller waits: no upstream call is made for this request
    /// once it leaves less than the upstream usually takes (the API passes its own limit down, so
    /// a late answer is said to be late by the part that was slow). `arrived` is when the request
    /// came: `staleAfter` and `fallbackAfter` count from then, not from when this actor got to it
    /// (250 new searches at once waited for it 3.6 s at the median).
    package func handle(_ raw: FetchRequest, client: String? = nil, deadline: Double? = nil,
                        arrived: ContinuousClock.Instant = .now) async -> FetchResult {
        await respond(raw, client: client, deadline: deadline, arrived: arrived).result
    }

    /// The answer as the transport sends it (`FetchResult` JSON). Answers the cache or the catalog
    /// gave are remembered encoded (`FetchReplyCache`) and the next ones come from there.
    package func encodedAnswer(_ raw: FetchRequest, client: String? = nil, deadline: Double? = nil,
                               arrived: ContinuousClock.Instant = .now) async -> Data {
        if let memoized = memoizedAnswer(raw) { return memoized }
        let (result, reuse) = await respond(raw, client: client, deadline: deadline, arrived: arrived)
        if case .success(let response) = result, let reuse {
            let answer = EncodedReply(response, storedAt: reuse.storedAt, freshUntil: reuse.freshUntil)
            replies.remember(reuse.key, answer)
            if let reply = answer.reply(at: now().timeIntervalSince1970) { return reply }
        }
        // FetchResult is made of strings, numbers and bytes: encoding cannot fail.
        return try! JSONEncoder().encode(result)
    }

    /// The remembered answer to `raw` if there is one still fresh, without the actor: the
    /// transport's own thread answers a repeated request with no hop to a task.
    package nonisolated func memoizedAnswer(_ raw: FetchRequest) -> Data? {
        guard FetchReplyCache.remembers(raw.kind), let request = try? raw.validated(),
              case .success(let source) = source(for: request) else { return nil }
        return replies.reply(CanonicalKey.of(request, provider: source.name), at: now().timeIntervalSince1970)
    }

    /// An answer that may be remembered: what it is keyed by, when its data was stored (nil for
    /// the catalog's) and until when it is fresh.
    private typealias Reuse = (key: String, storedAt: Double?, freshUntil: Double)

    private func respond(_ raw: FetchRequest, client: String?, deadline: Double?,
                         arrived: ContinuousClock.Instant) async -> (result: FetchResult, reuse: Reuse?) {
        let request: FetchRequest
        do {
            request = try raw.validated()
        } catch {
            return (.failure(error), nil)
        }
        let source: Source
        switch self.source(for: request) {
        case .success(let found): source = found
        case .failure(let error): return (.failure(error), nil)
        }
        let key = CanonicalKey.of(request, provider: source.name)
        let remembers = FetchReplyCache.remembers(request.kind)
        if case .provider(let provider) = source, provider.isLocal {
            do {
                let response = FetchResponse(payload: try await provider.fetch(request), origin: .catalog, ageSeconds: 0, provider: provider.name)
                return (.success(response), remembers ? (key, nil, .infinity) : nil)
            } catch {
                return (.failure(Self.fetchError(error)), nil)
            }
        }

        let cached = await cachedEntry(key)
        if let fresh = fresh(cached, kind: request.kind, provider: source.name), let cached {
            let lifetime = configuration.cacheLifetimes.seconds(for: request.kind)
            return (.success(fresh), remembers ? (key, cached.storedAt, cached.storedAt + lifetime) : nil)
        }
        return (await answerFromUpstream(request, key: key, source: source, cached: cached, client: client, deadline: deadline,
                                         arrived: arrived), nil)
    }

    /// A request the cache does not answer fresh: one upstream call per key at a time, or the
    /// expired answer if the call is slow, or what the catalog and the recipes already fetched
    /// hold if the call is late and nothing is cached. Either wait ends at its time whatever the
    /// call is doing (waiting for its turn, for a first byte, or for a body that trickles in).
    private func answerFromUpstream(_ request: FetchRequest, key: String, source: Source, cached: FetchStore.CachedEntry?,
                                    client: String?, deadline: Double?, arrived: ContinuousClock.Instant) async -> FetchResult {
        let task: Task<FetchResult, Never>, waiters: CallWaiters
        if let call = inFlight[key] {
            (task, waiters) = call
        } else {
            waiters = CallWaiters()
            task = Task { [waiters] in
                let result = await UpstreamGate.$waiters.withValue(waiters) {
                    await self.load(request, key: key, source: source, client: client)
                }
                self.inFlight[key] = nil
                return result
            }
            inFlight[key] = (task, waiters)
        }
        waiters.join(waiting: deadline)
        // No later than the caller waits.
        func waited(_ seconds: Double) -> ContinuousClock.Instant { arrived + .seconds(min(seconds, deadline ?? seconds)) }
        guard let cached else {
            // An uncached search once got its catalog answer only after 10-19.9 s: when the call is
            // late, the fallback answers at `fallbackAfter` (marked so), even when it finds nothing
            // (a trickling body held such a caller until the 10 s transfer timeout, for the same
            // empty fallback); the call goes on for whoever else waits and fills the cache.
            if let answer = await Self.result(of: task, until: waited(configuration.fallbackAfter)) { return answer }
            if let answer = await answerWithoutUpstream(request, key: key, source: source, retryAfter: nil,
                                                        reason: "the upstream is late") {
                waiters.leave(limited: deadline != nil)
                return .success(answer)
            }
            // A recipe neither the cache nor the catalog holds: only the call can answer it, and
            // the caller hears by its deadline that it did not (the call goes on to fill the cache).
            guard let deadline else { return await task.value }
            if let answer = await Self.result(of: task, until: waited(deadline)) { return answer }
            waiters.leave(limited: true)
            logger.notice("the upstream did not answer within the caller's deadline", metadata: ["key": "\(key)"])
            return .failure(.upstreamUnavailable(reason: "the recipe provider did not answer within \(String(format: "%.1f", deadline)) s"))
        }
        // An expired answer is there: the caller waits for the upstream only `staleAfter`, then
        // gets that answer while the call goes on and refreshes the cache for the next one.
        if let fresh = await Self.result(of: task, until: waited(configuration.staleAfter)) { return fresh }
        waiters.leave(limited: deadline != nil)
        logger.notice("serving stale cache while the upstream answers", metadata: ["key": "\(key)"])
        return .success(FetchResponse(payload: cached.payload, origin: .staleCache, ageSeconds: age(cached), provider: source.name))
    }

    /// The task's result if it comes by `deadline`, else nil then; the task goes on either way (a
    /// task group would wait for it, and awaiting a task's value is not cancellable).
    private static func result(of task: Task<FetchResult, Never>, until deadline: ContinuousClock.Instant) async -> FetchResult? {
        let answer = Mutex<CheckedContinuation<FetchResult?, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            answer.withLock { $0 = continuation }
            let resume: @Sendable (FetchResult?) -> Void = { result in answer.withLock { $0?.resume(returning: result); $0 = nil } }
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                resume(nil)
            }
            // The timer ends with the answer: 2,000 sleepers of 30 s each were left behind by 2,000
            // quick answers, 4 KiB apiece until they woke.
            Task {
                let value = await task.value
                timer.cancel()
                resume(value)
            }
        }
    }

    /// Quota points used today by `provider` ("spoonacular", "mealdb"), as persisted.
    package func quotaUsedToday(_ provider: String) async throws -> Double {
        guard let (day, used) = try await store.quotaUsed(provider), day == LimiterState.utcDay(now()) else { return 0 }
        return used
    }

    // MARK: private

    private enum Source: Sendable {
        case provider(any RecipeProvider)
        case image(url: String)

        var name: String {
            switch self {
            case .provider(let provider): provider.name
            case .image: "images"
            }
        }
    }

    private nonisolated func source(for request: FetchRequest) -> Result<Source, FetchError> {
        switch request {
        case .image(let url):
            // Not on the allow-list is "no such image" (404), not a malformed request: the URL is
            // well formed, this deployment just does not relay it.
            guard let origin = Self.origin(of: url), allowedImageOrigins.contains(origin) else {
                return .failure(.notFound)
            }
            return .success(.image(url: url))
        case .detail(let id):
            // A provider this deployment has no account with holds no recipe it can show: 404, as
            // for any recipe it cannot find (it was a 503, as if it would come back).
            guard let (name, _) = FetchRequest.splitID(id), let provider = providers[name] else {
                return .failure(.notFound)
            }
            return .success(.provider(provider))
        case .featured, .liked, .feed:
            return .success(.provider(catalog))
        default:
            guard let provider = providers[configuration.primary.rawValue] else {
                return .failure(.upstreamUnavailable(reason: "the recipe provider is not configured"))
            }
            return .success(.provider(provider))
        }
    }

    /// Host and port pairs images may come from: the configured image hosts at the default ports
    /// of http and https, and each upstream at its own port. The port counts: the same host at
    /// another port is another service (an admin console, a metadata endpoint).
    private nonisolated var allowedImageOrigins: Set<String> {
        let upstreams = [configuration.spoonacularURL, configuration.mealdbURL].compactMap(Self.origin(of:))
        return Set(configuration.imageHosts.flatMap { host in ["\(host.lowercased()):80", "\(host.lowercased()):443"] })
            .union(upstreams)
    }

    /// "host:port" of an http(s) URL, with the scheme's default port when it names none.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased(), !host.isEmpty,
              let scheme = components.scheme?.lowercased() else { return nil }
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        return "\(host):\(components.port ?? defaultPort)"
    }

    /// Runs once per key at a time; its result is shared by every caller of that key.
    private func load(_ request: FetchRequest, key: String, source: Source, client: String?) async -> FetchResult {
        // A caller that missed the cache just before the previous load stored its answer.
        if let fresh = await freshCached(key, kind: request.kind, provider: source.name) {
            return .success(fresh)
        }
        // The budgets are the callers' (the API names who asks); a request that names nobody is
        // the API's own (a recipe's facts for a point) and spends from the quota alone.
        for (budget, spender, everyone) in [(clientBudgets, client, false), (overallBudget, client.map { _ in "*" }, true)] {
            guard let budget, let spender, let wait = budget.retryAfter(spender) else { continue }
            let seconds = max(1, Int(wait.rounded(.up)))
            if let answer = await answerWithoutUpstream(request, key: key, source: source, retryAfter: seconds,
                                                        reason: "\(everyone ? "everyone's" : "the client's") share of upstream calls is spent") {
                return .success(answer)
            }
            // Said of whose share it was: a client refused for everyone's may have asked nothing.
            return .failure(everyone ? .overallBudgetExhausted(retryAfterSeconds: seconds) : .budgetExhausted(retryAfterSeconds: seconds))
        }
        do {
            let payload = try await fetchUpstream(request, from: source)
            do {
                try await store.save(payload, key: key, kind: request.kind, at: now())
                // An answer remembered from the entry just replaced must not outlive it.
                replies.forget(key)
            } catch {
                logger.error("cache write failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            return .success(FetchResponse(payload: payload, origin: .upstream, ageSeconds: 0, provider: source.name))
        } catch {
            if error == .notFound { return .failure(.notFound) }
            if case .rejected(let message) = error { return .failure(.badRequest(message: message)) }
            let failure = Self.fetchError(error)
            if let answer = await answerWithoutUpstream(request, key: key, source: source, retryAfter: failure.retryAfterSeconds,
                                                        reason: "\(error)") {
                return .success(answer)
            }
            return .failure(failure)
        }
    }

    /// When the upstream cannot be asked: the cached answer at any age, else the same request over
    /// the catalog and every recipe already fetched; nil for images and for a recipe neither holds.
    private func answerWithoutUpstream(_ request: FetchRequest, key: String, source: Source, retryAfter: Int?,
                                       reason: String) async -> FetchResponse? {
        if let entry = await cachedEntry(key) {
            logger.notice("serving stale cache", metadata: ["key": "\(key)", "reason": "\(reason)"])
            return FetchResponse(payload: entry.payload, origin: .staleCache, ageSeconds: age(entry),
                                 provider: source.name, upstreamRetryAfterSeconds: retryAfter)
        }
        guard case .provider = source else { return nil }
        let recipes = await fallbackSearch()
        // Off the actor, which answers cache hits meanwhile: in a burst after a restart 291
        // fallback answers were computed on it one after the other (41 s in a debug build).
        let seed = fallbackGenerator.next()
        let answer = await Task.detached { () -> FetchPayload? in
            var generator = SeededGenerator(seed: seed)
            return try? recipes.answer(request, using: &generator)
        }.value
        guard let payload = answer else { return nil }
        logger.notice("serving fallback", metadata: ["key": "\(key)", "reason": "\(reason)", "recipes": "\(recipes.recipes.count)"])
        return FetchResponse(payload: payload, origin: .fallback, ageSeconds: 0, provider: source.name,
                             upstreamRetryAfterSeconds: retryAfter)
    }

    /// Builds the fallback index (the catalog and the recipes already fetched), so that the first
    /// requests after a start find it made: the worker calls it before it answers.
    package func prepareFallback() async {
        _ = await fallbackSearch()
    }

    /// The fallback index: built once and shared; after a minute the one in hand is still given
    /// while a new one (with what was fetched since) is built beside it.
    private func fallbackSearch() async -> CatalogSearch {
        if let fallbackRecipes {
            if now().timeIntervalSince(fallbackRecipes.builtAt) >= 60, fallbackBuild == nil { fallbackBuild = buildFallback() }
            return fallbackRecipes.search
        }
        let build = fallbackBuild ?? buildFallback()
        fallbackBuild = build
        return await build.value
    }

    private func buildFallback() -> Task<CatalogSearch, Never> {
        Task {
            var fetched: [Recipe] = []
            do {
                fetched = try await store.cachedRecipes(limit: 5_000)
            } catch {
                logger.error("cache read failed", metadata: ["for": "fallback recipes", "error": "\(error)"])
            }
            var seen = Set<String>()
            let recipes = (fetched + catalog.recipes).filter { seen.insert($0.id).inserted }
            // Indexing takes a tenth of a second: off the actor, which answers cache hits meanwhile.
            let search = await Task.detached { CatalogSearch(recipes: recipes) }.value
            fallbackRecipes = (search, now())
            fallbackBuild = nil
            return search
        }
    }

    private func fetchUpstream(_ request: FetchRequest, from source: Source) async throws(ProviderError) -> FetchPayload {
        switch source {
        case .provider(let provider):
            return try await provider.fetch(request)
        case .image(let url):
            let response = try await images.get(url, logPath: URLComponents(string: url)?.path ?? "")
            let type = response.headers["Content-Type"] ?? "application/octet-stream"
            // SVG is a document that can carry scripts and links: relayed from our origin it would
            // run as ours. Only raster images pass.
            let lowered = type.lowercased()
            guard lowered.hasPrefix("image/"), !lowered.contains("svg") else {
                throw .rejected("the image URL answered \(type), not a raster image")
            }
            return .image(ImageData(contentType: type, bytes: response.body))
        }
    }

    private func freshCached(_ key: String, kind: FetchRequest.Kind, provider: String) async -> FetchResponse? {
        fresh(await cachedEntry(key), kind: kind, provider: provider)
    }

    /// The cached answer for `key` at any age; a read that fails is logged and counts as absent.
    private func cachedEntry(_ key: String) async -> FetchStore.CachedEntry? {
        do {
            return try await store.cached(key)
        } catch {
            logger.error("cache read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    /// `entry` as an answer, if it is within its kind's lifetime.
    private func fresh(_ entry: FetchStore.CachedEntry?, kind: FetchRequest.Kind, provider: String) -> FetchResponse? {
        guard let entry, Double(age(entry)) < configuration.cacheLifetimes.seconds(for: kind) else { return nil }
        return FetchResponse(payload: entry.payload, origin: .cache, ageSeconds: age(entry), provider: provider)
    }

    private nonisolated func age(_ entry: FetchStore.CachedEntry) -> Int {
        max(0, Int(now().timeIntervalSince1970 - entry.storedAt))
    }

    private static func fetchError(_ error: ProviderError) -> FetchError {
        switch error {
        case .notFound: .notFound
        case .rejected(let message): .badRequest(message: message)
        case .quotaExhausted(let retryAfter): .quotaExhausted(retryAfterSeconds: max(1, Int(retryAfter.rounded(.up))))
        case .rateLimited(let retryAfter): .rateLimited(retryAfterSeconds: max(1, Int(retryAfter.rounded(.up))))
        case .unavailable(let reason): .upstreamUnavailable(reason: reason)
        }
    }
}
