import Foundation

/// Limits for one upstream: a daily quota counted per UTC day and a token bucket.
public struct LimiterPolicy: Sendable, Equatable {
    /// Calls allowed per UTC day; nil means no daily quota.
    public var dailyQuota: Int?
    public var ratePerSecond: Double
    public var burst: Double
    /// A caller waits for a token at most this long; beyond it the call is refused.
    public var maxWait: Double

    public init(dailyQuota: Int?, ratePerSecond: Double, burst: Double, maxWait: Double) {
        self.dailyQuota = dailyQuota
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.maxWait = maxWait
    }
}

/// The persisted state of one upstream's limiter; all arithmetic is here, storage is not.
struct LimiterState: Equatable {
    /// UTC day ("2026-11-23") that `used` counts.
    var day: String
    var used: Int
    var tokens: Double
    /// When `tokens` was last brought up to date (seconds since 1970).
    var tokensAt: Double
    /// No call before this instant (seconds since 1970), set by 402 and 429 answers.
    var blockedUntil: Double

    enum Reservation: Equatable {
        /// One quota unit and one token are taken; start the call after `wait` seconds.
        case granted(wait: Double)
        case denied(retryAfter: Double)
    }

    static func initial(now: Date, policy: LimiterPolicy) -> LimiterState {
        LimiterState(day: utcDay(now), used: 0, tokens: policy.burst, tokensAt: now.timeIntervalSince1970, blockedUntil: 0)
    }

    /// Takes a quota unit and a token if both limits allow a call now or within `maxWait`.
    mutating func reserve(now: Date, policy: LimiterPolicy) -> Reservation {
        let t = now.timeIntervalSince1970
        rollDay(now: now)
        if blockedUntil > t {
            return .denied(retryAfter: blockedUntil - t)
        }
        if let quota = policy.dailyQuota, used >= quota {
            return .denied(retryAfter: Self.secondsToNextUTCMidnight(now))
        }
        // Tokens may go negative: a negative balance is a queue of granted future slots.
        let available = min(policy.burst, tokens + max(0, t - tokensAt) * policy.ratePerSecond)
        let wait = available >= 1 ? 0 : (1 - available) / policy.ratePerSecond
        if wait > policy.maxWait {
            return .denied(retryAfter: wait)
        }
        tokens = available - 1
        tokensAt = t
        used += 1
        return .granted(wait: wait)
    }

    /// Gives back a reservation whose call provably never reached the upstream.
    mutating func refund(policy: LimiterPolicy) {
        used = max(0, used - 1)
        tokens = min(policy.burst, tokens + 1)
    }

    /// The upstream reported how much quota is left after this call; `othersInFlight` calls
    /// are reserved here but may not be counted there yet. Only ever tightens.
    mutating func observe(quotaLeft: Double, othersInFlight: Int, now: Date, policy: LimiterPolicy) {
        guard let quota = policy.dailyQuota else { return }
        rollDay(now: now)
        let left = max(0, Int(quotaLeft.rounded(.down)))
        used = max(used, quota - left + othersInFlight)
    }

    /// The upstream said the day's quota is spent (402): nothing more until midnight UTC.
    mutating func observeQuotaSpent(now: Date, policy: LimiterPolicy) {
        rollDay(now: now)
        used = max(used, policy.dailyQuota ?? 0)
        blockedUntil = max(blockedUntil, now.timeIntervalSince1970 + Self.secondsToNextUTCMidnight(now))
    }

    /// The upstream said "too fast" (429).
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
