import Foundation
import Synchronization

/// Token buckets per key (a client address, or "*" for everyone): `burst` requests at once, then
/// `perSecond`. The API limits log-ins and registrations with them before any hashing; the fetch
/// worker limits the upstream calls each client may cause. Memory is bounded: when `maxKeys`
/// buckets exist, the full ones (idle clients) are dropped.
/// `burst` requests at once, then `perSecond`.
package struct RateLimit: Sendable, Equatable {
    package var perSecond: Double
    package var burst: Double
    package init(perSecond: Double, burst: Double) { self.perSecond = perSecond; self.burst = burst }
}

package final class RateLimiter: Sendable {
    package typealias Limit = RateLimit

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    package let limit: Limit
    private let maxKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    package init(_ limit: Limit, maxKeys: Int = 100_000) {
        self.limit = limit
        self.maxKeys = maxKeys
    }

    /// Nil when `key` may go now (a token is taken), else the seconds until it may.
    package func retryAfter(_ key: String, now: ContinuousClock.Instant = .now) -> Double? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: limit.burst, updated: now)
            let elapsed = Double((now - bucket.updated).components.attoseconds) / 1e18 + Double((now - bucket.updated).components.seconds)
            bucket.tokens = min(limit.burst, bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = now
            defer {
                if buckets.count >= maxKeys, buckets[key] == nil {
                    buckets = buckets.filter { $0.value.tokens < limit.burst - 1 }
                }
                buckets[key] = bucket
            }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / limit.perSecond }
            bucket.tokens -= 1
            return nil
        }
    }
}
