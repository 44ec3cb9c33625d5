import Foundation
import Testing
@testable import PantryFetch

@Suite struct QuotaArithmeticTests {
    let policy = LimiterPolicy(dailyQuota: 3, ratePerSecond: 1, burst: 2, maxWait: 1.5)
    let noon = Date(timeIntervalSince1970: 1_795_435_200)  // 2026-11-23 12:00:00 UTC

    /// A call as the gate makes it: granted, then charged right before it leaves.
    func call(_ state: inout LimiterState, at date: Date, cost: Double = 1, policy: LimiterPolicy? = nil) -> LimiterState.Reservation {
        let policy = policy ?? self.policy
        let granted = state.reserve(now: date, policy: policy, cost: cost, waiting: 0)
        guard case .granted = granted else { return granted }
        return state.charge(now: date, policy: policy, cost: cost)
    }

    @Test func dailyQuotaIsCountedInPointsPerUTCDay() {
        var state = LimiterState.initial(now: noon, policy: policy)
        for second in 0..<3 {
            #expect(call(&state, at: noon.addingTimeInterval(Double(second))) == .granted(wait: 0))
        }
        #expect(call(&state, at: noon.addingTimeInterval(10)) == .denied(retryAfter: 43_190, reason: .quota))
        let nextDay = noon.addingTimeInterval(12 * 3600 + 1)
        #expect(call(&state, at: nextDay) == .granted(wait: 0))
        #expect(state.day == "2026-11-24" && state.used == 1)
    }

    @Test func aCallCostingTwoPointsNeedsTwoPointsOfRoom() {
        let points = LimiterPolicy(dailyQuota: 150, ratePerSecond: 10_000, burst: 10_000, maxWait: 1)
        var state = LimiterState.initial(now: noon, policy: points)
        for _ in 0..<75 { #expect(call(&state, at: noon, cost: 2, policy: points) == .granted(wait: 0)) }
        #expect(state.used == 150)
        #expect(call(&state, at: noon, cost: 2, policy: points) == .denied(retryAfter: 43_200, reason: .quota))
    }

    @Test func callsWaitingForTheirTurnHoldRoomButAreNotCharged() {
        var state = LimiterState.initial(now: noon, policy: policy)
        #expect(state.reserve(now: noon, policy: policy, cost: 1, waiting: 2) == .granted(wait: 0))
        #expect(state.used == 0, "nothing is spent until the call leaves")
        #expect(state.reserve(now: noon, policy: policy, cost: 1, waiting: 3) == .denied(retryAfter: 43_200, reason: .quota))
    }

    @Test func tokenBucketAllowsABurstThenQueuesWithinMaxWait() {
        let unlimited = LimiterPolicy(dailyQuota: nil, ratePerSecond: 1, burst: 2, maxWait: 1.5)
        var state = LimiterState.initial(now: noon, policy: unlimited)
        #expect(state.reserve(now: noon, policy: unlimited, cost: 1, waiting: 0) == .granted(wait: 0))
        #expect(state.reserve(now: noon, policy: unlimited, cost: 1, waiting: 0) == .granted(wait: 0))
        #expect(state.reserve(now: noon, policy: unlimited, cost: 1, waiting: 0) == .granted(wait: 1))
        // The next slot would be 2 s away, beyond maxWait.
        #expect(state.reserve(now: noon, policy: unlimited, cost: 1, waiting: 0) == .denied(retryAfter: 2, reason: .rate))
        #expect(state.reserve(now: noon.addingTimeInterval(1), policy: unlimited, cost: 1, waiting: 0) == .granted(wait: 1))
    }

    @Test func aRefundGivesBackTheChargeAndTheToken() {
        var state = LimiterState.initial(now: noon, policy: policy)
        _ = call(&state, at: noon, cost: 1.5)
        state.refund(charged: 1.5, policy: policy)
        #expect(state.used == 0)
        #expect(state.tokens == 2)
    }

    /// The upstream's account is the truth, plus the calls it may not have counted yet: it raises
    /// `used` at any time, lowers it unless a lost call may still be counted, never above the quota.
    @Test func theUpstreamsAccountIsTheTruth() {
        let big = LimiterPolicy(dailyQuota: 150, ratePerSecond: 1, burst: 2, maxWait: 1)
        var state = LimiterState.initial(now: noon, policy: big)
        state.used = 40   // a crash left worst cases charged for calls it never settled
        state.settle(charged: 2, request: 1.1, upstreamUsed: 7.7, upstreamLeft: 142.3, uncounted: nil, now: noon, policy: big)
        #expect(abs(state.used - 39.1) < 1e-9, "a lost call may still be counted: not lowered yet")
        state.settle(charged: 2, request: 1.1, upstreamUsed: 8.8, upstreamLeft: nil, uncounted: 0, now: noon, policy: big)
        #expect(abs(state.used - 8.8) < 1e-9, "quiet: the upstream's count, not the crash's")
        state.used = 40
        state.settle(charged: 2, request: 1.1, upstreamUsed: 8.8, upstreamLeft: nil, uncounted: 3, now: noon, policy: big)
        #expect(abs(state.used - 11.8) < 1e-9, "calls in the air: lowered to the count and their worst cases")
        state.settle(charged: 2, request: 1.1, upstreamUsed: nil, upstreamLeft: 20.7, uncounted: nil, now: noon, policy: big)
        #expect(abs(state.used - 129.3) < 1e-9, "another client of the key spent the rest")
        state.settle(charged: 2, request: nil, upstreamUsed: 151, upstreamLeft: nil, uncounted: nil, now: noon, policy: big)
        #expect(state.used == 150, "never above the quota")
        state.used = 10
        state.settle(charged: 2, request: 1.5, upstreamUsed: nil, upstreamLeft: nil, uncounted: 0, now: noon, policy: big)
        #expect(state.used == 9.5, "without the upstream's account, settled to what the call cost")
    }

    @Test("An answer read after a 402 does not lower the spent day's count, so the block stays the quota's")
    func anAnswerReadAfterA402DoesNotUndoIt() {
        let big = LimiterPolicy(dailyQuota: 150, ratePerSecond: 1, burst: 2, maxWait: 1)
        var state = LimiterState.initial(now: noon, policy: big)
        state.observeQuotaSpent(now: noon, upstreamClock: nil, policy: big)
        state.settle(charged: 1, request: 1, upstreamUsed: 5, upstreamLeft: nil, uncounted: 0, now: noon, policy: big)
        #expect(state.used == 150)
        #expect(state.reserve(now: noon.addingTimeInterval(1), policy: big, cost: 1, waiting: 0)
                == .denied(retryAfter: 43_199, reason: .quota))
    }

    @Test func aBlockArrivingWhileACallWaitedStopsItBeforeItLeaves() {
        var state = LimiterState.initial(now: noon, policy: policy)
        #expect(state.reserve(now: noon, policy: policy, cost: 1, waiting: 0) == .granted(wait: 0))
        state.observeRetryAfter(seconds: 30, now: noon)
        #expect(state.charge(now: noon.addingTimeInterval(1), policy: policy, cost: 1) == .denied(retryAfter: 29, reason: .rate))
        #expect(state.used == 0)
    }

    @Test func spentQuotaBlocksUntilMidnightAndRetryAfterBlocksBriefly() {
        var state = LimiterState.initial(now: noon, policy: policy)
        state.observeRetryAfter(seconds: 30, now: noon)
        #expect(state.reserve(now: noon.addingTimeInterval(10), policy: policy, cost: 1, waiting: 0)
                == .denied(retryAfter: 20, reason: .rate))
        state.observeQuotaSpent(now: noon, upstreamClock: nil, policy: policy)
        #expect(state.used == 3)
        #expect(state.reserve(now: noon.addingTimeInterval(3600), policy: policy, cost: 1, waiting: 0)
                == .denied(retryAfter: 39_600, reason: .quota))
    }

    /// The upstream's clock 2 s behind ours: its 402 just after our midnight is its previous day.
    @Test func a402JustAfterMidnightBlocksOnlyUntilAProbe() {
        let midnight = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00:00 UTC
        var state = LimiterState.initial(now: midnight.addingTimeInterval(-10), policy: policy)
        state.observeQuotaSpent(now: midnight.addingTimeInterval(2), upstreamClock: nil, policy: policy)
        #expect(state.reserve(now: midnight.addingTimeInterval(30), policy: policy, cost: 1, waiting: 0)
                == .denied(retryAfter: 32, reason: .rate))
        #expect(call(&state, at: midnight.addingTimeInterval(63)) == .granted(wait: 0), "the probe after a minute goes out")
    }

    /// Our clock 5 s ahead of the upstream's: its 402 at our 00:00:00.7 is its 23:59:55.7, and its
    /// day resets at its midnight, our 00:00:05.7; a clock far from ours is not believed.
    @Test func a402BeforeTheUpstreamsOwnMidnightBlocksUntilIt() {
        let midnight = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00:00 UTC
        var state = LimiterState.initial(now: midnight.addingTimeInterval(-10), policy: policy)
        state.observeQuotaSpent(now: midnight.addingTimeInterval(0.7), upstreamClock: midnight.addingTimeInterval(-5), policy: policy)
        #expect(state.used == 0, "the 402 is of the upstream's previous day")
        guard case .denied(let retryAfter, _) = state.reserve(now: midnight.addingTimeInterval(5), policy: policy, cost: 1, waiting: 0) else {
            Issue.record("a call before the upstream's reset went out"); return
        }
        #expect(abs(retryAfter - 1.7) < 0.001, "until its midnight and a second (\(retryAfter) s)")
        #expect(call(&state, at: midnight.addingTimeInterval(6.7)) == .granted(wait: 0), "the call at its reset goes out")

        var believed = LimiterState.initial(now: noon, policy: policy)
        believed.observeQuotaSpent(now: noon, upstreamClock: noon.addingTimeInterval(-7200), policy: policy)
        #expect(believed.reserve(now: noon.addingTimeInterval(3600), policy: policy, cost: 1, waiting: 0)
                == .denied(retryAfter: 39_600, reason: .quota), "a clock 2 h off is ignored: our midnight")
    }

    @Test func retryAfterIsReadAsSecondsOrAsAnHTTPDate() {
        #expect(RetryAfter.seconds("30", now: noon) == 30)
        #expect(RetryAfter.seconds("0", now: noon) == 1)
        #expect(RetryAfter.seconds("Mon, 23 Nov 2026 12:01:00 GMT", now: noon) == 60)
        #expect(RetryAfter.seconds("soon", now: noon) == nil)
        #expect(RetryAfter.seconds(nil, now: noon) == nil)
    }
}
