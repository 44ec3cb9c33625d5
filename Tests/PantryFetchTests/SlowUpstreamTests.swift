import Foundation
import PantryTestSupport
import Testing
@testable import PantryFetch
import PantryWire

/// Against a slow upstream no point is spent on an answer nobody waits for, and the caller gets
/// the catalog's answer, marked, rather than waiting for it.
@Suite struct SlowUpstreamTests {
    let upstream: FakeUpstream
    let service: FetchService

    init() throws {
        upstream = try FakeUpstream()
        var config = upstreamConfiguration(upstream, databasePath: try temporaryDatabasePath())
        config.requestTimeout = 40
        config.fallbackAfter = 1  // the default
        service = try FetchService(configuration: config)
    }

    @Test("A caller whose deadline is nearer than the upstream's usual answer gets the fallback at once, and nothing is charged")
    func aDeadlineShorterThanTheUsualLatencyMakesNoCall() async throws {
        try await upstream.mode("slow", "&delay=2")
        #expect(await service.handle(.detail(id: "spoonacular:1")).response?.origin == .upstream, "the latency is learnt")
        // The count at the end proves no call was made for either.
        let search = await service.handle(.search(query: "stew", diet: nil, maxReadyTime: nil, offset: 0, number: 5), deadline: 1.5)
        #expect(search.response?.origin == .fallback, "\(search)")
        guard case .upstreamUnavailable(let reason)? = await service.handle(.detail(id: "spoonacular:2"), deadline: 1.5).error else {
            Issue.record("expected the upstream to be called too slow"); return
        }
        #expect(reason.contains("usually answers in"), "\(reason)")
        #expect(try await upstream.count() == 1, "no call made for either")
    }

    @Test("With nothing cached the fallback answers within about a second when the upstream is late, marked as such")
    func aLateUpstreamIsAnsweredByTheFallback() async throws {
        // The upstream takes 30 s so that a machine busy with every other suite (which once took
        // 3.9 s here for the 1 s answer, and 9.3 s at a load of 20) still tells "answered early"
        // from "waited".
        try await upstream.mode("slow", "&delay=30")
        let asked = ContinuousClock.now
        let answer = await service.handle(.byIngredients(ingredients: ["egg"], number: 3), deadline: 19)
        #expect(answer.response?.origin == .fallback, "\(answer)")
        #expect(ContinuousClock.now - asked < .seconds(20), "1 s, with room for a loaded machine; never the upstream's 30 s")
    }
}
