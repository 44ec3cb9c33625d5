import Foundation
import Synchronization

/// Slows password guessing per account: after `freeFailures` failed logins within `window`,
/// each further attempt must wait `baseDelay * 2^(failures - freeFailures)` (at most `maxDelay`)
/// after the last failure. A success clears the account's record.
package struct LoginThrottle: Sendable {
    package var window: TimeInterval = 15 * 60
    package var freeFailures = 5
    package var baseDelay: TimeInterval = 1
    package var maxDelay: TimeInterval = 5 * 60
    /// Bounds memory under a spray of made-up usernames; the oldest records go first.
    package var maxAccounts = 100_000

    private var failures: [String: [Date]] = [:]

    package init() {}

    /// Seconds until `username` may try again, or nil when it may try now.
    package func retryAfter(_ username: String, now: Date) -> TimeInterval? {
        let recent = recentFailures(username, now: now)
        guard recent.count >= freeFailures, let last = recent.last else { return nil }
        let exponent = Double(recent.count - freeFailures)
        let delay = min(baseDelay * pow(2, exponent), maxDelay)
        let wait = last.addingTimeInterval(delay).timeIntervalSince(now)
        return wait > 0 ? wait : nil
    }

    /// Seconds to wait, or nil after counting this attempt as failed until `recordSuccess` says
    /// otherwise: checked and counted at once, so that twenty guesses sent together do not all
    /// pass the check before the first is known to have failed (they did: 24 of 60 were hashed).
    package mutating func admit(_ username: String, now: Date) -> TimeInterval? {
        if let wait = retryAfter(username, now: now) { return wait }
        recordFailure(username, now: now)
        return nil
    }

    package mutating func recordFailure(_ username: String, now: Date) {
        let key = username.lowercased()
        var recent = recentFailures(key, now: now)
        recent.append(now)
        // Past this many the delay is at its cap anyway.
        failures[key] = recent.suffix(freeFailures + 32)
        if failures.count > maxAccounts { evictOldest(now: now) }
    }

    package mutating func recordSuccess(_ username: String) {
        failures[username.lowercased()] = nil
    }

    private func recentFailures(_ username: String, now: Date) -> [Date] {
        (failures[username.lowercased()] ?? []).filter { now.timeIntervalSince($0) < window }
    }

    private mutating func evictOldest(now: Date) {
        failures = failures.filter { now.timeIntervalSince($0.value.last ?? .distantPast) < window }
        while failures.count > maxAccounts, let oldest = failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }) {
            failures[oldest.key] = nil
        }
    }
}

/// The throttle shared by concurrent requests.
package final class SharedLoginThrottle: Sendable {
    private let throttle: Mutex<LoginThrottle>

    package init(_ throttle: LoginThrottle = LoginThrottle()) { self.throttle = Mutex(throttle) }

    package func retryAfter(_ username: String, now: Date = Date()) -> TimeInterval? {
        throttle.withLock { $0.retryAfter(username, now: now) }
    }

    package func admit(_ username: String, now: Date = Date()) -> TimeInterval? {
        throttle.withLock { $0.admit(username, now: now) }
    }

    package func recordSuccess(_ username: String) {
        throttle.withLock { $0.recordSuccess(username) }
    }
}
