import Foundation
import Synchronization

/// A clock that moves only when the test says so: the caches and limiters take their `now` from
/// it (`{ clock.instant }`, `{ clock.date }`), and a test of an expiry advances it past the
/// lifetime instead of sleeping through it. Both readings start at the real time of creation and
/// advance together.
package final class ManualClock: Sendable {
    private let startInstant: ContinuousClock.Instant
    private let startDate: Date
    private let elapsed = Mutex<Duration>(.zero)

    package init(date: Date = Date()) {
        startInstant = .now
        startDate = date
    }

    /// The monotonic reading, for what measures durations (`ContinuousClock`).
    package var instant: ContinuousClock.Instant { startInstant + elapsed.withLock { $0 } }

    /// The wall-clock reading, for what stores times or counts days (`Date`).
    package var date: Date { startDate.addingTimeInterval(elapsed.withLock { $0 } / .seconds(1)) }

    /// Moves both readings forward by `duration`.
    package func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock does not go back")
        elapsed.withLock { $0 += duration }
    }
}
