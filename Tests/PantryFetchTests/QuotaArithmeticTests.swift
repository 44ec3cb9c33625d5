import Foundation
import Testing
@testable import PantryFetch

@Suite struct QuotaArithmeticTests {
    let policy = LimiterPolicy(dailyQuota: 3, ratePerSecond: 1, burst: 2, maxWait: 1.5)
    let noon = Date(timeIntervalSince1970: 1_795_435_200)  // 2026-11-23 12:00:00 UTC

    @Test func dailyQuotaIsCountedPerUTCDay() {
        var state = LimiterState.initial(now: noon, policy: policy)
        for second in 0..<3 {
            #expect(state.reserve(now: noon.addingTimeInterval(Double(second)), policy: policy) == .granted(wait: 0))
        }
        #expect(state.reserve(now: noon.addingTimeInterval(10), policy: policy) == .denied(retryAfter: 43_190))
        let nextDay = noon.addingTimeInterval(12 * 3600 + 1)
        #expect(state.reserve(now: nextDay, policy: policy) == .granted(wait: 0))
        #expect(state.day == "2026-11-24" && state.used == 1)
    }

    @Test func tokenBucketAllowsABurstThenQueuesWithinMaxWait() {
        let unlimited = LimiterPolicy(dailyQuota: nil, ratePerSecond: 1, burst: 2, maxWait: 1.5)
        var state = LimiterState.initial(now: noon, policy: unlimited)
        #expect(state.reserve(now: noon, policy: unlimited) == .granted(wait: 0))
        #expect(state.reserve(now: noon, policy: unlimited) == .granted(wait: 0))
        #expect(state.reserve(now: noon, policy: unlimited) == .granted(wait: 1))
        // The next slot would be 2 s away, beyond maxWait.
        #expect(state.reserve(now: noon, policy: unlimited) == .denied(retryAfter: 2))
        #expect(state.reserve(now: noon.addingTimeInterval(1), policy: unlimited) == .granted(wait: 1))
    }

    @Test func refundGivesBackOneUnit() {
        var state = LimiterState.initial(now: noon, policy: policy)
        _ = state.reserve(now: noon, policy: policy)
        state.refund(policy: policy)
        #expect(state.used == 0)
        #expect(state.tokens == 2)
    }

    @Test func upstreamQuotaLeftOnlyTightens() {
        var state = LimiterState.initial(now: noon, policy: LimiterPolicy(dailyQuota: 150, ratePerSecond: 1, burst: 2, maxWait: 1))
        let big = LimiterPolicy(dailyQuota: 150, ratePerSecond: 1, burst: 2, maxWait: 1)
        state.used = 10
        state.observe(quotaLeft: 145.5, othersInFlight: 0, now: noon, policy: big)
        #expect(state.used == 10)
        state.observe(quotaLeft: 20.7, othersInFlight: 2, now: noon, policy: big)
        #expect(state.used == 132)
    }

    @Test func spentQuotaBlocksUntilMidnightAndRetryAfterBlocksBriefly() {
        var state = LimiterState.initial(now: noon, policy: policy)
        state.observeRetryAfter(seconds: 30, now: noon)
        #expect(state.reserve(now: noon.addingTimeInterval(10), policy: policy) == .denied(retryAfter: 20))
        state.observeQuotaSpent(now: noon, policy: policy)
        #expect(state.used == 3)
        #expect(state.reserve(now: noon.addingTimeInterval(3600), policy: policy) == .denied(retryAfter: 39_600))
    }
}
