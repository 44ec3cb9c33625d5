import Synchronization

/// Who still waits for one upstream call that callers of the same request share, and until
/// when: the latest deadline among them (nil while one of them waits without a limit). A caller
/// given another answer meanwhile (the fallback) leaves; once nobody waits, a call that has not
/// left yet is not made, so no point is spent on an answer nobody waits for.
final class CallWaiters: Sendable {
    private let state = Mutex<(count: Int, unlimited: Int, latest: ContinuousClock.Instant?)>((0, 0, nil))

    /// A caller who waits `seconds` (nil: without a limit) from now.
    func join(waiting seconds: Double?) {
        state.withLock { state in
            state.count += 1
            guard let seconds else {
                state.unlimited += 1
                return
            }
            let until = ContinuousClock.now + .seconds(seconds)
            state.latest = max(state.latest ?? until, until)
        }
    }

    /// A caller who joined with a limit (`limited`) or without one stops waiting.
    func leave(limited: Bool) {
        state.withLock { state in
            state.count -= 1
            if !limited { state.unlimited -= 1 }
        }
    }

    /// When the last caller stops waiting: nil when one waits without a limit, now when none waits.
    var deadline: ContinuousClock.Instant? {
        state.withLock { state in
            if state.count <= 0 { return ContinuousClock.now }
            return state.unlimited > 0 ? nil : state.latest
        }
    }
}
