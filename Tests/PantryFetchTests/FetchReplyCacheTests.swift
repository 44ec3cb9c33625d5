import Foundation
import PantryJSON
import PantryTestSupport
import Testing
@testable import PantryFetch
import PantryWire

/// The fetch worker's memo of encoded answers: what it gives is what the service would compute
/// now, it lets go of what changed or expired, it never keeps what must not be repeated, and it
/// stays within its bytes.
@Suite struct FetchReplyCacheTests {
    static let search = FetchRequest.search(query: "Soup", diet: nil, maxReadyTime: nil, offset: 0, number: 10)

    func catalogService() throws -> FetchService {
        var config = FetchConfiguration(databasePath: try temporaryDatabasePath())
        config.catalogFile = CatalogTests.smallCatalog
        return try FetchService(configuration: config)
    }

    func decoded(_ bytes: Data?) throws -> FetchResult? {
        try bytes.map { try JSONDecoder().decode(FetchResult.self, from: $0) }
    }

    func reusableForMs(_ bytes: Data) throws -> Int? {
        try bytes.withUnsafeBytes { raw in try JSONObjectReader.read(raw) { try $0.optionalInt("reusableForMs") } }
    }

    @Test func aMemoizedCatalogAnswerEqualsAFreshlyComputedOne() async throws {
        let service = try catalogService()
        #expect(service.memoizedAnswer(Self.search) == nil)
        let first = try #require(try decoded(await service.encodedAnswer(Self.search)))
        let memoized = try #require(service.memoizedAnswer(Self.search))
        #expect(try decoded(memoized) == first)
        #expect(try decoded(memoized) == (await service.handle(Self.search)))
        #expect(try reusableForMs(memoized) == 60_000)

        // The canonical key: the same ingredients in another order and case are the same answer.
        let eggsFirst = FetchRequest.byIngredients(ingredients: ["egg", "tomato"], number: 10)
        _ = await service.encodedAnswer(eggsFirst)
        let other = FetchRequest.byIngredients(ingredients: ["Tomato", "EGG"], number: 10)
        #expect(try decoded(service.memoizedAnswer(other)) == (await service.handle(other)))
    }

    @Test func randomDrawsAndFeedsAreNeverMemoized() async throws {
        let service = try catalogService()
        for request in [FetchRequest.random(count: 2), .feed(seed: 3, offset: 0, count: 2)] {
            let answer = await service.encodedAnswer(request)
            #expect(service.memoizedAnswer(request) == nil, "\(request)")
            #expect(try reusableForMs(answer) == nil)
        }
    }

    @Test func aMemoizedCacheAnswerCountsItsAgeAnew() async throws {
        let upstream = try FakeUpstream()
        let clock = ManualClock()
        let service = try FetchService(configuration: upstreamConfiguration(upstream, databasePath: temporaryDatabasePath()),
                                       now: { clock.date })
        let detail = FetchRequest.detail(id: "spoonacular:716429")
        let fetched = try #require(try decoded(await service.encodedAnswer(detail))?.response)
        #expect(fetched.origin == .upstream)
        #expect(service.memoizedAnswer(detail) == nil, "an upstream answer is not kept: the cache answers next")

        let cached = try #require(try decoded(await service.encodedAnswer(detail))?.response)
        #expect(cached.origin == .cache && cached.payload == fetched.payload)
        let memoized = try #require(service.memoizedAnswer(detail))
        #expect(try decoded(memoized)?.response?.payload == fetched.payload)
        #expect(try reusableForMs(memoized) == 1000, "until the age changes, a second after it was stored")

        clock.advance(by: .milliseconds(1100))
        let computed = try await service.handle(detail).get()
        let later = try #require(try decoded(service.memoizedAnswer(detail))?.response)
        #expect(computed.ageSeconds == 1)
        #expect(later == computed)
        #expect(try await upstream.count() == 1)
    }

    /// A service over a fake upstream whose recipe details stay cached `lifetime` seconds of
    /// `clock`, and a detail request.
    private static func detailService(lifetime: Double, clock: ManualClock = ManualClock()) throws
        -> (FakeUpstream, FetchService, FetchRequest) {
        let upstream = try FakeUpstream()
        var config = upstreamConfiguration(upstream, databasePath: try temporaryDatabasePath())
        config.cacheLifetimes.detail = lifetime
        // The refresh is waited for, however slow a loaded machine makes it (real time, not the clock).
        config.staleAfter = 60
        return (upstream, try FetchService(configuration: config, now: { clock.date }), FetchRequest.detail(id: "spoonacular:716429"))
    }

    @Test func anExpiredThenRefreshedCacheEntryIsNotServedFromTheMemo() async throws {
        let clock = ManualClock()
        let (upstream, service, detail) = try Self.detailService(lifetime: 2, clock: clock)
        _ = await service.encodedAnswer(detail)
        _ = await service.encodedAnswer(detail)
        #expect(service.memoizedAnswer(detail) != nil)

        clock.advance(by: .milliseconds(1999))
        #expect(service.memoizedAnswer(detail) != nil, "fresh until the cache entry expires")
        clock.advance(by: .milliseconds(1))
        #expect(service.memoizedAnswer(detail) == nil, "expired with the cache entry")
        let refreshed = try #require(try decoded(await service.encodedAnswer(detail))?.response)
        #expect(refreshed.origin == .upstream && refreshed.ageSeconds == 0)
        #expect(try await upstream.count() == 2)
        let again = try #require(try decoded(await service.encodedAnswer(detail))?.response)
        #expect(again.origin == .cache && again.ageSeconds == 0, "the refreshed entry's age, not the old one's")
        #expect(try decoded(service.memoizedAnswer(detail))?.response == again)
    }

    @Test func staleAndFallbackAnswersAreNeverMemoized() async throws {
        let (upstream, service, detail) = try Self.detailService(lifetime: 0)
        _ = await service.encodedAnswer(detail)
        try await upstream.mode("quota402")
        let stale = await service.encodedAnswer(detail)
        #expect(try decoded(stale)?.response?.origin == .staleCache)
        #expect(try reusableForMs(stale) == nil && service.memoizedAnswer(detail) == nil)

        let fallback = await service.encodedAnswer(Self.search)
        #expect(try decoded(fallback)?.response?.origin == .fallback)
        #expect(try reusableForMs(fallback) == nil && service.memoizedAnswer(Self.search) == nil)
    }

    @Test func theMemoStaysWithinItsCapacity() async throws {
        let memo = FetchReplyCache(capacity: 64 << 10)
        let page = FetchPayload.searchPage(SearchPage(offset: 0, totalResults: 1, results: [
            RecipeSummary(id: "catalog:x", title: String(repeating: "soup ", count: 100), image: nil, readyInMinutes: 10, servings: 2),
        ]))
        let answer = EncodedReply(FetchResponse(payload: page, origin: .catalog, ageSeconds: 0, provider: "catalog"),
                                    storedAt: nil, freshUntil: .infinity)
        for n in 0..<1_000 {
            memo.remember("catalog/search|q=\(n)", answer)
            #expect(memo.cost <= 64 << 10)
        }
        let now = Date().timeIntervalSince1970
        #expect(memo.reply("catalog/search|q=999", at: now) != nil, "the latest is kept")
        #expect(memo.reply("catalog/search|q=0", at: now) == nil, "the oldest went")
    }
}
