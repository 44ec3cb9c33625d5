import Foundation

/// Limits for one upstream: a daily quota in points per UTC day, a token bucket, and how many
/// calls may be in the air at once.
package struct LimiterPolicy: Sendable, Equatable {
    /// Points allowed per UTC day (Spoonacular charges 1 per call and 0.01 per result); nil means no quota.
    package var dailyQuota: Int?
    package var ratePerSecond: Double
    package var burst: Double
    /// A caller waits for a token at most this long; beyond it the call is refused.
    package var maxWait: Double
    /// Calls in the air at once (Spoonacular's free plan allows 2; more are answered 429).
    package var maxConcurrent: Int
    /// A 402 this soon after midnight UTC may be the upstream's previous day (its clock behind
    /// ours): only a short block, then a probe, rather than the whole new day.
    package var midnightGrace: Double = 600
    package var midnightProbe: Double = 60

    package init(dailyQuota: Int?, ratePerSecond: Double, burst: Double, maxWait: Double, maxConcurrent: Int = 2) {
        self.dailyQuota = dailyQuota
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.maxWait = maxWait
        self.maxConcurrent = maxConcurrent
    }
}

/// The persisted state of one upstream's limiter; all arithmetic is here, storage is not.
///
/// `used` counts points as the upstream counts them: what it reported (`X-API-Quota-Used`), plus
/// the worst case of calls sent and not answered yet. Calls granted but still waiting for their
/// slot are not in it (the gate holds them in memory): a crash forgets them, and burns nothing.
struct LimiterState: Equatable {
    /// UTC day ("2026-11-23") that `used` counts.
    var day: String
    var used: Double
    var tokens: Double
    /// When `tokens` was last brought up to date (seconds since 1970).
    var tokensAt: Double
    /// No call before this instant (seconds since 1970), set by 402, 429 and a refused key.
    var blockedUntil: Double

    enum Reservation: Equatable {
        /// A token is taken and the quota holds `cost` more; start the call after `wait` seconds.
        case granted(wait: Double)
        case denied(retryAfter: Double, reason: DenialReason)
    }

    enum DenialReason: Equatable {
        /// The day's quota (or the upstream's block after a 402).
        case quota
        /// The rate: too many calls for now (or the upstream's 429).
        case rate
    }

    static func initial(now: Date, policy: LimiterPolicy) -> LimiterState {
        LimiterState(day: utcDay(now), used: 0, tokens: policy.burst, tokensAt: now.timeIntervalSince1970, blockedUntil: 0)
    }

    /// Takes a token if the rate allows a call now or within `maxWait`, and the quota has room for
    /// `cost` beyond `used` and the `waiting` points of calls granted before and not sent yet.
    mutating func reserve(now: Date, policy: LimiterPolicy, cost: Double, waiting: Double) -> Reservation {
        let t = now.timeIntervalSince1970
        rollDay(now: now)
        if let denial = blocked(now: now, policy: policy, cost: cost + waiting) { return denial }
        // Tokens may go negative: a negative balance is a queue of granted future slots.
        let available = min(policy.burst, tokens + max(0, t - tokensAt) * policy.ratePerSecond)
        let wait = available >= 1 ? 0 : (1 - available) / policy.ratePerSecond
        if wait > policy.maxWait {
            return .denied(retryAfter: wait, reason: .rate)
        }
        tokens = available - 1
        tokensAt = t
        return .granted(wait: wait)
    }

    /// Right before a granted call leaves: refused if a 402 or 429 arrived meanwhile or the quota
    /// no longer has room; otherwise its worst case is charged.
    mutating func charge(now: Date, policy: LimiterPolicy, cost: Double) -> Reservation {
        rollDay(now: now)
        if let denial = blocked(now: now, policy: policy, cost: cost) { return denial }
        used = Self.points(used + cost)
        return .granted(wait: 0)
    }

    private func blocked(now: Date, policy: LimiterPolicy, cost: Double) -> Reservation? {
        let t = now.timeIntervalSince1970
        if blockedUntil > t {
            return .denied(retryAfter: blockedUntil - t, reason: used >= Double(policy.dailyQuota ?? .max) ? .quota : .rate)
        }
        if let quota = policy.dailyQuota, used + cost > Double(quota) + 1e-9 {
            return .denied(retryAfter: Self.secondsToNextUTCMidnight(now), reason: .quota)
        }
        return nil
    }

    /// Gives back a granted call's token (it was never sent).
    mutating func refundToken(policy: LimiterPolicy) {
        tokens = min(policy.burst, tokens + 1)
    }

    /// A charged call provably never reached the upstream: its worst case and its token come back.
    mutating func refund(charged: Double, policy: LimiterPolicy) {
        used = Self.points(max(0, used - charged))
        refundToken(policy: policy)
    }

    /// The upstream answered a call charged `charged`, which cost `request` (its
    /// `X-API-Quota-Request`): the worst case is settled to that. The upstream's own account
    /// (`X-API-Quota-Used`, or the quota less `X-API-Quota-Left`), when it is of today
    /// (`UpstreamAccount`), is the truth plus what it may not have counted yet (`uncounted`: the
    /// other calls in the air at worst case): it raises `used` (another client of the same key, a
    /// count this process lost) and lowers it (worst cases a crash left charged, a day's count
    /// the upstream reset). While a call lost to a timeout may still be counted (`uncounted`
    /// nil) it only raises. Never above the quota.
    mutating func settle(charged: Double, request: Double?, upstreamUsed: Double?, upstreamLeft: Double?,
                         uncounted: Double?, now: Date, policy: LimiterPolicy) {
        rollDay(now: now)
        guard let quota = policy.dailyQuota.map(Double.init) else {
            used = Self.points(max(0, used + (request ?? charged) - charged))
            return
        }
        // After a 402 an answer read late (counted before the quota ran out, or another 402)
        // does not undo it: lowered, the block in force read as a rate limit ("retry in 37,762 s").
        if blockedUntil > now.timeIntervalSince1970, used >= quota { return }
        used = Self.points(max(0, used + (request ?? charged) - charged))
        if let reported = upstreamUsed ?? upstreamLeft.map({ max(0, quota - $0) }) {
            used = uncounted.map { reported + $0 } ?? max(used, reported)
        }
        used = Self.points(min(used, quota))
    }

    /// Points come in hundredths: sums of them are kept exact rather than drifting in binary.
    static func points(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }

    /// The upstream said the day's quota is spent (402): nothing more until its day resets, at
    /// midnight UTC on its own clock, which its answer's `Date` says (`upstreamClock`; taken when
    /// within `midnightGrace` of ours). With ours 5 s ahead, a 402 at our 00:00:00.7 was its
    /// 23:59:55.7: the next call goes at its midnight, not after a minute's probe (every answer in
    /// between was a fallback). Just after our midnight without that, or with its clock past its
    /// own midnight too, the 402 may still be its previous day's: a short block, then a probe.
    mutating func observeQuotaSpent(now: Date, upstreamClock: Date?, policy: LimiterPolicy) {
        rollDay(now: now)
        let t = now.timeIntervalSince1970
        let sinceMidnight = 86_400 - Self.secondsToNextUTCMidnight(now)
        // `Date` is in whole seconds and written before we read it: one second more.
        let untilItsMidnight = upstreamClock.flatMap { clock in
            abs(clock.timeIntervalSince(now)) < policy.midnightGrace ? Self.secondsToNextUTCMidnight(clock) + 1 : nil
        }
        if sinceMidnight < policy.midnightGrace {
            if let untilItsMidnight, untilItsMidnight < policy.midnightGrace {
                blockedUntil = max(blockedUntil, t + untilItsMidnight)
            } else {
                blockedUntil = max(blockedUntil, t + policy.midnightProbe)
            }
        } else {
            used = max(used, Double(policy.dailyQuota ?? 0))
            blockedUntil = max(blockedUntil, t + (untilItsMidnight ?? Self.secondsToNextUTCMidnight(now)))
        }
    }

    /// The upstream said "too fast" (429), or refused the key: nothing before `seconds`.
    mutating func observeRetryAfter(seconds: Double, now: Date) {
        blockedUntil = max(blockedUntil, now.timeIntervalSince1970 + seconds)
        tokens = min(tokens, 0)
        tokensAt = now.timeIntervalSince1970
    }

    private mutating func rollDay(now: Date) {
        let today = Self.utcDay(now)
        if day != today {
            day = today
            used = 0
        }
    }

    static func utcDay(_ date: Date) -> String {
        let c = utcCalendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    static func secondsToNextUTCMidnight(_ date: Date) -> Double {
        let start = utcCalendar.startOfDay(for: date)
        return start.addingTimeInterval(86_400).timeIntervalSince(date)
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
