import Foundation

/// What this process knows of the upstream's own count of our UTC day (`X-API-Quota-Used`, or
/// the quota less `X-API-Quota-Left`), and when that count may lower ours. Pure arithmetic; the
/// gate keeps one per provider in memory.
///
/// Spoonacular's headers carry no date, and its midnight is not exactly ours: with its reset 2 s
/// after ours, a 402 at 00:00:00.1 said `X-API-Quota-Used: 150`, the new day was set to 150 and
/// every call was refused locally for the rest of it (86,325 s), while the upstream had reset.
struct UpstreamAccount: Equatable {
    /// The UTC day the figures below are of.
    var day = ""
    /// Worst-case points of the calls sent since our midnight: just after it, the upstream's
    /// count can be of the new day only if it is no more than these.
    var sentToday = 0.0
    /// The highest count the upstream gave for today: answers are read out of order, and an
    /// older one must not lower the count below a newer one.
    var reported: Double?
    /// Until when (seconds since 1970) a call that went unanswered (a timeout) may still be
    /// counted upstream: until then its account only raises ours. It was "for the life of the
    /// process", and one timeout left the count at 29.7 against the upstream's 12.1 for good.
    var lostUntil = 0.0

    /// How long after a timeout the upstream may still count the lost call.
    static let lostWindow: Double = 60

    /// A call of worst case `cost` left.
    mutating func sent(_ cost: Double, now: Date) {
        roll(now)
        sentToday += cost
    }

    /// A sent call went unanswered.
    mutating func lost(now: Date) {
        lostUntil = max(lostUntil, now.timeIntervalSince1970 + Self.lostWindow)
    }

    /// The upstream's count to take for today, given that it reported `count` and that calls of
    /// worst case `inAir` (this one included) were sent and not yet settled; nil when the count
    /// belongs to the upstream's previous day (in `policy.midnightGrace` after our midnight, more
    /// than was sent since). In the same time before our midnight, a count lower than today's
    /// highest by more than the calls in the air is the upstream's own reset (its midnight before
    /// ours), taken as the new highest. At any other time a lower count is an older answer read
    /// late (500 calls at once: taken as a reset it let a 151st call leave).
    mutating func read(_ count: Double, inAir: Double, now: Date, policy: LimiterPolicy) -> Double? {
        roll(now)
        let sinceMidnight = 86_400 - LimiterState.secondsToNextUTCMidnight(now)
        if sinceMidnight < policy.midnightGrace, count > sentToday + 0.005 { return nil }
        let beforeMidnight = LimiterState.secondsToNextUTCMidnight(now) < policy.midnightGrace
        if let reported, !beforeMidnight || count >= reported - inAir - 0.005 {
            self.reported = max(reported, count)
        } else {
            reported = count
        }
        return reported
    }

    /// Points the upstream may not have counted yet beyond `inAir` (the calls still in the air,
    /// at worst case), or nil while a lost call may still be counted at any time.
    func uncounted(inAir: Double, now: Date) -> Double? {
        now.timeIntervalSince1970 < lostUntil ? nil : max(0, inAir)
    }

    private mutating func roll(_ now: Date) {
        let today = LimiterState.utcDay(now)
        if day != today {
            day = today
            sentToday = 0
            reported = nil
        }
    }
}
