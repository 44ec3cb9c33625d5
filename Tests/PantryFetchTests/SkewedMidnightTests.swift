import Foundation
import PantryTestSupport
import Testing
@testable import PantryFetch
import PantryWire

/// The quota across a midnight the stand-in upstream keeps a little after ours (its clock
/// behind), and after a timeout; the worker's wall clock is a `ManualClock`, the upstream's
/// reset is done when the test says.
@Suite struct SkewedMidnightTests {
    let upstream: FakeUpstream
    let databasePath: String
    let midnight = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00:00 UTC

    init() throws {
        upstream = try FakeUpstream()
        databasePath = try temporaryDatabasePath()
    }

    func service(clock: ManualClock) throws -> FetchService {
        var config = upstreamConfiguration(upstream, databasePath: databasePath)
        config.spoonacularLimits.midnightGrace = 600
        config.spoonacularLimits.midnightProbe = 60
        return try FetchService(configuration: config, now: { clock.date })
    }

    @Test("A 402 just past our midnight probes again a minute later rather than blocking the new day")
    func a402JustPastMidnightProbesAgain() async throws {
        let clock = ManualClock(date: midnight.addingTimeInterval(-10))
        let service = try service(clock: clock)
        try await upstream.mode("normal", "&quota=150&quota_left=0")
        #expect(await service.handle(.detail(id: "spoonacular:1")).error.map { if case .quotaExhausted = $0 { true } else { false } } == true)

        clock.advance(by: .milliseconds(10_100))  // 00:00:00.1: the upstream's day is still the old one
        guard case .quotaExhausted(let retry)? = await service.handle(.detail(id: "spoonacular:2")).error else {
            Issue.record("expected the upstream's 402"); return
        }
        #expect(retry <= 60, "a probe within a minute, not the whole day (\(retry) s)")
        #expect(try await service.quotaUsedToday("spoonacular") == 0, "the 402's 150 is the upstream's previous day")

        try await upstream.mode("normal", "&quota_left=150")  // the upstream's midnight, 2 s after ours
        clock.advance(by: .seconds(61))
        let probe = await service.handle(.detail(id: "spoonacular:3"))
        #expect(probe.response?.origin == .upstream, "\(probe)")
        #expect(try await service.quotaUsedToday("spoonacular") == 1)
    }

    @Test("A 200 just past our midnight carrying the upstream's previous day does not set the new day's count")
    func aPreviousDaysCountOnA200IsNotTaken() async throws {
        let clock = ManualClock(date: midnight.addingTimeInterval(1))
        let service = try service(clock: clock)
        try await upstream.mode("normal", "&quota=150&quota_left=5")  // 145 used on the upstream's old day
        #expect(await service.handle(.detail(id: "spoonacular:4")).response?.origin == .upstream)
        #expect(try await service.quotaUsedToday("spoonacular") == 1, "our day: the one call sent")
        try await upstream.mode("normal", "&quota_left=150")
        #expect(await service.handle(.detail(id: "spoonacular:5")).response?.origin == .upstream)
        #expect(try await service.quotaUsedToday("spoonacular") == 1, "the upstream's count once it reset")
    }

    @Test("After an upstream timeout the count is reconciled down to the upstream's once the lost call is counted")
    func aTimeoutIsReconciledDown() async throws {
        let clock = ManualClock(date: midnight.addingTimeInterval(12 * 3600))
        var config = upstreamConfiguration(upstream, databasePath: databasePath)
        config.requestTimeout = 0.5
        let service = try FetchService(configuration: config, now: { clock.date })
        try await upstream.mode("slow", "&delay=1")
        // Charged its worst case (2 points for 100 results); the stand-in charges 1.25 when it answers.
        let lost = await service.handle(.search(query: "stew", diet: nil, maxReadyTime: nil, offset: 0, number: 100))
        #expect(lost.response?.origin != .upstream)
        try await upstream.mode("normal")
        _ = try await waitUntil(interval: .milliseconds(50)) { try await upstream.used() >= 1.25 }
        #expect(try await service.handle(.detail(id: "spoonacular:6")).get().origin == .upstream)
        #expect(try await service.quotaUsedToday("spoonacular") == 3, "the lost call may still be counted: worst case kept")
        clock.advance(by: .seconds(UpstreamAccount.lostWindow + 1))
        #expect(try await service.handle(.detail(id: "spoonacular:7")).get().origin == .upstream)
        #expect(try await service.quotaUsedToday("spoonacular") == (try await upstream.used()), "the upstream's own count")
    }
}
