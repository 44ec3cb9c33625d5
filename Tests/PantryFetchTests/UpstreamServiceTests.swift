import Foundation
import PantryTestSupport
import Testing
@testable import PantryFetch
import PantryWire

/// FetchService against the real fake upstream over real libcurl, with SQLite in a temp dir.
@Suite struct UpstreamServiceTests {
    let upstream: FakeUpstream
    let databasePath: String

    init() throws {
        upstream = try FakeUpstream()
        databasePath = try temporaryDatabasePath()
    }

    /// The service over the fake upstream; its cache's ages and the quota's days on `clock` when
    /// one is given, else on the real clock.
    func service(dailyQuota: Int = 150, clock: ManualClock? = nil, adjust: (inout FetchConfiguration) -> Void = { _ in }) throws
        -> FetchService {
        var config = upstreamConfiguration(upstream, databasePath: databasePath, dailyQuota: dailyQuota)
        adjust(&config)
        guard let clock else { return try FetchService(configuration: config) }
        return try FetchService(configuration: config, now: { clock.date })
    }

    @Test func spoonacularDetailIsNormalisedThenServedFromCache() async throws {
        let service = try service()
        let first = try await service.handle(.detail(id: "spoonacular:716429")).get()
        guard case .recipe(let recipe) = first.payload else { Issue.record("\(first)"); return }
        #expect(first.origin == .upstream && first.ageSeconds == 0)
        #expect(recipe.title == "Pasta with Garlic, Scallions, Cauliflower & Breadcrumbs")
        #expect(recipe.servings == 2 && recipe.readyInMinutes == 45)
        #expect(recipe.ingredients.first == Ingredient(name: "butter", amount: 1, unit: "tbsp", original: "1 tbsp butter"))
        #expect(recipe.instructions.count == 3)
        #expect(recipe.sourceName == "Full Belly Sisters" && recipe.sourceUrl?.hasPrefix("https://") == true)
        #expect(recipe.dishTypes.contains("main course"))

        let second = try await service.handle(.detail(id: "spoonacular:716429")).get()
        #expect(second.origin == .cache && second.payload == first.payload)
        #expect(try await upstream.count() == 1)
        #expect(try await service.quotaUsedToday("spoonacular") == 1)
    }

    @Test func everyKindIsAnsweredInPantrysModel() async throws {
        let service = try service()
        guard case .summaries(let found) = try await service.handle(.byIngredients(ingredients: ["egg", "tomato"], number: 5)).get().payload,
              case .searchPage(let page) = try await service.handle(.search(query: "pasta", diet: "whole 30", maxReadyTime: 60, offset: 20, number: 10)).get().payload,
              case .recipes(let random) = try await service.handle(.random(count: 3)).get().payload,
              case .suggestions(let names) = try await service.handle(.autocomplete(prefix: "egg", number: 5)).get().payload
        else { Issue.record("wrong payload kind"); return }
        #expect(found.count == 5 && found.allSatisfy { $0.id.hasPrefix("spoonacular:") && $0.usedIngredientCount == 2 })
        #expect(found.map { $0.missedIngredientCount ?? -1 } == found.map { $0.missedIngredientCount ?? -1 }.sorted())
        #expect(page.offset == 20 && page.totalResults == 25 && page.results.count == 5)
        #expect(page.results.allSatisfy { $0.readyInMinutes != nil && $0.servings == 2 })
        #expect(random.count == 3)
        #expect(names == ["egg", "egg yolk"])
        #expect(await service.handle(.detail(id: "spoonacular:404")) == .failure(.notFound))
    }

    @Test func mealDBMealsAreNormalised() async throws {
        let service = try service()
        guard case .recipe(let meal) = try await service.handle(.detail(id: "mealdb:52772")).get().payload else {
            Issue.record("no meal"); return
        }
        #expect(meal.title == "Teriyaki Chicken Casserole")
        #expect(meal.ingredients.count == 9)
        #expect(meal.ingredients[0] == Ingredient(name: "soy sauce", amount: 0.75, unit: "cup", original: "3/4 cup soy sauce"))
        #expect(meal.instructions.first == "Preheat oven to 350° F.")
        #expect(await service.handle(.detail(id: "mealdb:404")) == .failure(.notFound))
        #expect(try await service.quotaUsedToday("spoonacular") == 0, "TheMealDB does not spend Spoonacular's quota")

        let mealdbFirst = try self.service { $0.primary = .mealdb }
        guard case .summaries(let both) = try await mealdbFirst.handle(.byIngredients(ingredients: ["chicken breasts", "soy sauce"], number: 10)).get().payload,
              case .suggestions(let names) = try await mealdbFirst.handle(.autocomplete(prefix: "Ch", number: 5)).get().payload,
              case .searchPage(let page) = try await mealdbFirst.handle(.search(query: "teriyaki", diet: nil, maxReadyTime: nil, offset: 0, number: 5)).get().payload
        else { Issue.record("wrong payload kind"); return }
        // The meal with both first, then those with one (TheMealDB lists each ingredient separately).
        #expect(both.first?.id == "mealdb:52772" && both.first?.usedIngredientCount == 2)
        #expect(both.dropFirst().allSatisfy { $0.usedIngredientCount == 1 })
        #expect(names == ["cheddar", "chicken breast"])
        #expect(page.results.map(\.id) == ["mealdb:52772"])
    }

    @Test func hundredIdenticalConcurrentRequestsMakeOneUpstreamCall() async throws {
        let service = try service()
        try await upstream.mode("slow", "&delay=0.5")  // keep the first call in flight while the others arrive
        let results = await withTaskGroup(of: FetchResult.self) { group in
            for _ in 0..<100 {
                group.addTask { await service.handle(.search(query: "soup", diet: nil, maxReadyTime: nil, offset: 0, number: 10)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.response != nil })
        #expect(try await upstream.count() == 1)
        #expect(try await service.quotaUsedToday("spoonacular") == 1.1, "1 point and 0.01 for each of 10 results")
    }

    /// At either timeout exactly the quota is served: calls in the air, counted at their worst
    /// case beside the upstream's count that may already hold them, once left 149 of 150 served
    /// (in about half the runs, with either timeout, and in a CI run).
    @Test(arguments: [2.0, 60.0])
    func fiveHundredDistinctConcurrentRequestsNeverExceedTheDailyQuota(requestTimeout: Double) async throws {
        let service = try service(dailyQuota: 150) { $0.requestTimeout = requestTimeout }
        let results = await withTaskGroup(of: FetchResult.self) { group in
            for index in 0..<500 {
                group.addTask { await service.handle(.detail(id: "spoonacular:\(1000 + index)")) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let served = results.filter { $0.response != nil }
        let refused = results.filter {
            if case .quotaExhausted(let seconds)? = $0.error { return seconds > 0 }
            return false
        }
        #expect(served.count + refused.count == 500, "every caller gets data or the quota error")
        #expect(try await upstream.count() <= 150)
        #expect(served.count == 150)
        #expect(try await service.quotaUsedToday("spoonacular") == 150)
        #expect(try await upstream.used() == 150, "the upstream's own account agrees")
    }

    @Test func quotaCounterSurvivesReopeningTheService() async throws {
        do {
            let first = try service(dailyQuota: 3)
            for id in 1...3 { _ = await first.handle(.detail(id: "spoonacular:\(id)")) }
        }
        let reopened = try service(dailyQuota: 3)
        #expect(try await reopened.quotaUsedToday("spoonacular") == 3)
        guard case .quotaExhausted? = await reopened.handle(.detail(id: "spoonacular:4")).error else {
            Issue.record("expected quotaExhausted"); return
        }
        #expect(try await reopened.handle(.detail(id: "spoonacular:2")).get().origin == .cache)
        #expect(try await upstream.count() == 3)
    }

    @Test func staleCacheIsServedWhenTheUpstreamIsStopped() async throws {
        // A zero lifetime makes every cached answer stale, so each request tries the upstream first.
        let service = try service { $0.cacheLifetimes.detail = 0 }
        let fresh = try await service.handle(.detail(id: "spoonacular:716429")).get()
        upstream.stop()
        let stale = try await service.handle(.detail(id: "spoonacular:716429")).get()
        #expect(stale.origin == .staleCache && stale.payload == fresh.payload)
        guard case .upstreamUnavailable(let reason)? = await service.handle(.detail(id: "spoonacular:1")).error else {
            Issue.record("expected upstreamUnavailable"); return
        }
        #expect(reason.contains("cannot connect"))
        // Refused connections never reached the upstream, so they were refunded.
        #expect(try await service.quotaUsedToday("spoonacular") == 1)
    }

    @Test func aSpentQuotaFallsBackToTheCatalogAndTheRecipesAlreadyFetched() async throws {
        let service = try service()
        let fetched = try await service.handle(.detail(id: "spoonacular:716429")).get()
        guard case .recipe(let recipe) = fetched.payload else { Issue.record("\(fetched)"); return }
        try await upstream.mode("quota402")
        _ = await service.handle(.detail(id: "spoonacular:1"))
        let calls = try await upstream.count()

        // A keyword of the recipe fetched before, and one of the catalog's: both found, no call made.
        let search = try await service.handle(.search(query: "cauliflower", diet: nil, maxReadyTime: nil, offset: 0, number: 10)).get()
        #expect(search.origin == .fallback)
        #expect((search.upstreamRetryAfterSeconds ?? 0) > 0 && (search.upstreamRetryAfterSeconds ?? 0) <= 86_400)
        guard case .searchPage(let page) = search.payload else { Issue.record("\(search)"); return }
        #expect(page.results.map(\.id).contains(recipe.id))
        let soup = try await service.handle(.search(query: "soup", diet: nil, maxReadyTime: nil, offset: 0, number: 10)).get()
        guard case .searchPage(let soups) = soup.payload else { Issue.record("\(soup)"); return }
        #expect(!soups.results.isEmpty && soups.results.allSatisfy { $0.id.hasPrefix("catalog:") })

        let byIngredients = try await service.handle(.byIngredients(ingredients: ["egg", "tomato"], number: 5)).get()
        guard case .summaries(let summaries) = byIngredients.payload else { Issue.record("\(byIngredients)"); return }
        #expect(byIngredients.origin == .fallback && !summaries.isEmpty)
        let random = try await service.handle(.random(count: 3)).get()
        guard case .recipes(let drawn) = random.payload else { Issue.record("\(random)"); return }
        #expect(random.origin == .fallback && Set(drawn.map(\.id)).count == 3)
        #expect(try await service.handle(.autocomplete(prefix: "cauli", number: 5)).get().origin == .fallback)
        #expect(try await upstream.count() == calls, "nothing was asked of the upstream")

        // A recipe neither the cache nor the catalog holds cannot be made up: the error says when to retry.
        guard case .quotaExhausted(let seconds)? = await service.handle(.detail(id: "spoonacular:2")).error else {
            Issue.record("expected quotaExhausted"); return
        }
        #expect(seconds > 0)
    }

    /// An expired answer is served once the upstream is late (RFC 5861's stale-while-revalidate),
    /// and the call it started goes on to refresh the cache.
    @Test func anExpiredAnswerIsServedWhileTheUpstreamIsLateAndTheCallRefreshesIt() async throws {
        let cacheClock = ManualClock()
        let service = try service(clock: cacheClock) { $0.cacheLifetimes.search = 2; $0.requestTimeout = 10; $0.staleAfter = 0.3 }
        let request = FetchRequest.search(query: "stew", diet: nil, maxReadyTime: nil, offset: 0, number: 5)
        let first = try await service.handle(request).get()
        cacheClock.advance(by: .seconds(3))
        // The upstream takes 8 s: the stale answer (due after 0.3 s) must come well before it,
        // with room for a loaded CI machine.
        try await upstream.mode("slow", "&delay=8")
        let clock = ContinuousClock()
        let asked = clock.now
        let stale = try await service.handle(request).get()
        #expect(stale.origin == .staleCache && stale.payload == first.payload)
        #expect(clock.now - asked < .seconds(6), "answered before the upstream did (it takes 8 s)")
        try await upstream.mode("normal")
        // The late call lands and refreshes the cache; until then each ask gets the stale answer,
        // after waiting `staleAfter` for that call: the loop needs no pause of its own.
        var refreshed = false
        while !refreshed, clock.now - asked < .seconds(20) {
            refreshed = try await service.handle(request).get().origin == .cache
        }
        #expect(refreshed, "the late call refreshed the cache")
        #expect(try await upstream.count() == 2, "one call for the first answer, one for the refresh")
    }

    /// The caller's deadline ends its wait, not the transfer (which holds its slot until it ends):
    /// a hanging upstream is reported as the upstream's lateness within the caller's time, not
    /// left to the caller's own timeout.
    @Test func theCallersDeadlineEndsItsWaitAndSaysWhoWasLate() async throws {
        // Limits far apart, so that a machine busy with every other suite (which once took 10.4 s
        // here) still tells the caller's 2.5 s from the transfer's own limit.
        let service = try service { $0.requestTimeout = 40 }
        // An upstream slower than the transfer's own limit: without the deadline the call takes 40 s.
        try await upstream.mode("slow", "&delay=45")
        let clock = ContinuousClock()
        let asked = clock.now
        // 6 s: a call whose turn comes after the deadline is (rightly) not made at all, and on a
        // loaded machine the reservation's write took over 0.7 s, once over 2.5 s (every suite
        // beside two other builds).
        let result = await service.handle(.detail(id: "spoonacular:31"), deadline: 6)
        guard case .upstreamUnavailable(let reason)? = result.error else { Issue.record("\(result)"); return }
        // The caller's 6 s, never the transfer's own 40 s.
        #expect(reason.contains("did not answer within 6.0 s"), "\(reason)")
        #expect(clock.now - asked < .seconds(25), "not the 40 s of the transfer's own limit")
    }

    @Test func anOutageFallsBackWithoutARetryTime() async throws {
        let service = try service()
        upstream.stop()
        let answer = try await service.handle(.byIngredients(ingredients: ["egg"], number: 3)).get()
        #expect(answer.origin == .fallback && answer.upstreamRetryAfterSeconds == nil)
        guard case .summaries(let summaries) = answer.payload else { Issue.record("\(answer)"); return }
        #expect(summaries.count == 3 && summaries.allSatisfy { $0.id.hasPrefix("catalog:") })
    }

    @Test(arguments: [
        ("malformed", "", "malformed JSON"),
        ("error500", "", "HTTP 500"),
        ("slow", "&delay=3", "did not answer within"),
    ])
    func brokenUpstreamGivesAClearErrorOrStaleData(_ mode: String, _ options: String, _ reason: String) async throws {
        let service = try service { $0.cacheLifetimes.search = 0; $0.requestTimeout = 0.5 }
        let cachedRequest = FetchRequest.search(query: "stew", diet: nil, maxReadyTime: nil, offset: 0, number: 5)
        _ = try await service.handle(cachedRequest).get()
        try await upstream.mode(mode, options)
        let error = await service.handle(.detail(id: "spoonacular:99")).error
        guard case .upstreamUnavailable(let message)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(message.contains(reason))
        #expect(try await service.handle(cachedRequest).get().origin == .staleCache)
    }

    @Test func spentQuota402StopsCallsUntilMidnight() async throws {
        let service = try service()
        _ = try await service.handle(.detail(id: "spoonacular:5")).get()
        try await upstream.mode("quota402")
        guard case .quotaExhausted(let seconds)? = await service.handle(.detail(id: "spoonacular:6")).error else {
            Issue.record("expected quotaExhausted"); return
        }
        #expect(seconds > 0 && seconds <= 86_400)
        #expect(try await upstream.count() == 2)
        try await upstream.mode("normal")
        guard case .quotaExhausted? = await service.handle(.detail(id: "spoonacular:7")).error else {
            Issue.record("expected the quota to stay spent"); return
        }
        #expect(try await upstream.count() == 2, "no call after the 402")
        #expect(try await service.handle(.detail(id: "spoonacular:5")).get().origin == .cache)
        #expect(try await service.quotaUsedToday("spoonacular") == 150)
    }

    @Test func tooManyRequests429HonoursRetryAfter() async throws {
        let service = try service()
        try await upstream.mode("rate429", "&retry_after=7")
        #expect(await service.handle(.detail(id: "spoonacular:8")).error == .rateLimited(retryAfterSeconds: 7))
        try await upstream.mode("normal")
        guard case .rateLimited(let seconds)? = await service.handle(.detail(id: "spoonacular:9")).error else {
            Issue.record("expected the Retry-After block to hold"); return
        }
        #expect(seconds <= 7)
        #expect(try await upstream.count() == 1)
    }

    @Test func theUpstreamsAccountIsTheTruth() async throws {
        let service = try service()
        try await upstream.mode("normal", "&quota=150&quota_left=4")
        _ = try await service.handle(.detail(id: "spoonacular:10")).get()
        #expect(try await service.quotaUsedToday("spoonacular") == 147)
        // A search for 100 results costs 2 points: 3 are left, so one fits and the next does not.
        _ = try await service.handle(.search(query: "a", diet: nil, maxReadyTime: nil, offset: 0, number: 100)).get()
        #expect(try await service.quotaUsedToday("spoonacular") == 147 + 1.25)
        // A 2-point call with 1.75 points left is refused before it leaves: the fallback answers.
        let refused = try await service.handle(.search(query: "b", diet: nil, maxReadyTime: nil, offset: 0, number: 100)).get()
        #expect(refused.origin == .fallback && (refused.upstreamRetryAfterSeconds ?? 0) > 0)
        #expect(try await upstream.count() == 2)
    }

    /// 150 points, and 150 different searches for 100 results at once (2 points each at worst,
    /// 1.25 as charged for the 25 the upstream has): the quota is counted in points, never overrun,
    /// and the upstream never has to answer 402.
    @Test func twoPointCallsAreCountedInPoints() async throws {
        let service = try service(dailyQuota: 150)
        try await upstream.mode("normal", "&quota=150")
        let results = await withTaskGroup(of: FetchResult.self) { group in
            for index in 0..<150 {
                group.addTask { await service.handle(.search(query: "q\(index)", diet: nil, maxReadyTime: nil, offset: 0, number: 100)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let served = results.filter { $0.response.map { $0.origin != .fallback } ?? false }.count
        #expect(served >= 75, "at least the worst case's share")
        #expect(results.allSatisfy { $0.response != nil }, "the rest answered from the fallback")
        #expect(try await upstream.count() == served, "every call that went out was answered with data: no 402")
        #expect(try await upstream.used() <= 150)
        #expect(try await service.quotaUsedToday("spoonacular") <= 150)
    }

    @Test func imagesAreFetchedCachedAndRestrictedToKnownHosts() async throws {
        let service = try service()
        let url = "\(upstream.baseURL)/images/pasta.png"
        guard case .image(let image) = try await service.handle(.image(url: url)).get().payload else {
            Issue.record("no image"); return
        }
        #expect(image.contentType == "image/png" && image.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try await service.handle(.image(url: url)).get().origin == .cache)
        #expect(try await upstream.count() == 1)
        #expect(try await service.quotaUsedToday("spoonacular") == 0)
        guard case .notFound? = await service.handle(.image(url: "http://169.254.169.254/latest")).error else {
            Issue.record("expected notFound for a foreign host"); return
        }
        // The upstream's host at another port is another service.
        let otherPort = url.replacingOccurrences(of: ":\(URLComponents(string: url)!.port!)/", with: ":1/")
        guard case .notFound? = await service.handle(.image(url: otherPort)).error else {
            Issue.record("expected notFound for the upstream's host at another port"); return
        }
    }
}
