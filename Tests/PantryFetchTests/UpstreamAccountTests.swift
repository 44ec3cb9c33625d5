import Foundation
import Testing
@testable import PantryFetch

/// The upstream's own count read for our day: not its previous day's just after our midnight,
/// its own reset taken when it comes, lowering ours again once a lost call can no longer count.
@Suite struct UpstreamAccountTests {
    var policy = LimiterPolicy(dailyQuota: 150, ratePerSecond: 1, burst: 2, maxWait: 1)
    let midnight = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00:00 UTC

    @Test("Just after our midnight a count above what was sent since is the upstream's previous day")
    func aCountAboveWhatWasSentSinceMidnightIsYesterdays() {
        var account = UpstreamAccount()
        account.sent(1, now: midnight.addingTimeInterval(-5))
        #expect(account.read(149, inAir: 1, now: midnight.addingTimeInterval(-4), policy: policy) == 149)
        account.sent(1, now: midnight.addingTimeInterval(0.1))
        #expect(account.read(150, inAir: 1, now: midnight.addingTimeInterval(0.1), policy: policy) == nil,
                "a 402 at 00:00:00.1 saying 150: the upstream has not reset yet")
        account.sent(1.05, now: midnight.addingTimeInterval(3))
        #expect(account.read(1.05, inAir: 1.05, now: midnight.addingTimeInterval(3), policy: policy) == 1.05,
                "after its reset: within what was sent since midnight")
        #expect(account.read(140, inAir: 0, now: midnight.addingTimeInterval(700), policy: policy) == 140,
                "after the grace, another client of the key may have spent it")
    }

    @Test("Just before our midnight a count lower than today's highest by more than the calls in the air is the upstream's reset")
    func aDropBeyondTheCallsInTheAirIsTheUpstreamsReset() {
        var account = UpstreamAccount()
        let evening = midnight.addingTimeInterval(-60)
        #expect(account.read(145.3, inAir: 1, now: evening, policy: policy) == 145.3)
        #expect(account.read(144.5, inAir: 1.05, now: evening, policy: policy) == 145.3, "an older answer read late")
        #expect(account.read(24.2, inAir: 1.05, now: evening, policy: policy) == 24.2, "the upstream's day rolled before ours")

        var midday = UpstreamAccount()
        let noon = midnight.addingTimeInterval(-12 * 3600)
        #expect(midday.read(12, inAir: 1, now: noon, policy: policy) == 12)
        #expect(midday.read(10, inAir: 1, now: noon, policy: policy) == 12, "far from midnight a lower count is an older answer")
    }

    @Test("A lost call blocks lowering the count only for a while, not for the life of the process")
    func aLostCallBlocksLoweringForAWhile() {
        var account = UpstreamAccount()
        let noon = midnight.addingTimeInterval(12 * 3600)
        account.lost(now: noon)
        #expect(account.uncounted(inAir: 0, now: noon.addingTimeInterval(30)) == nil)
        #expect(account.uncounted(inAir: 2, now: noon.addingTimeInterval(UpstreamAccount.lostWindow + 1)) == 2)
    }

    @Test("The usual latency follows the upstream's recent calls and leaves room for their spread")
    func theUsualLatencyFollowsRecentCalls() {
        var latency = UpstreamLatency()
        let now = ContinuousClock.now
        #expect(latency.expected(at: now) == nil)
        for _ in 0..<20 { latency.record(5, at: now) }
        #expect(latency.expected(at: now).map { $0 > 5 && $0 < 5.2 } == true, "\(String(describing: latency.expected(at: now)))")
        for _ in 0..<40 { latency.record(0.05, at: now) }
        #expect(latency.expected(at: now).map { $0 < 0.5 } == true, "\(String(describing: latency.expected(at: now)))")
        latency.record(10, at: now)
        #expect(latency.expected(at: now + UpstreamLatency.holds) == nil,
                "a minute without a call: the next ones go and measure again, or a hang once would block for good")
    }
}
