import Foundation

/// Waits until `condition` holds, looking again every `interval`: true when it did, false once
/// `timeout` passed. Only for another process, a socket or the operating system, which cannot tell
/// the test when they change; what this process does is awaited through a notification instead
/// (a continuation, a semaphore, a socket's readiness), and what a clock decides through
/// `ManualClock`.
package func waitUntil(timeout: Duration = .seconds(10), interval: Duration = .milliseconds(10),
                      _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        // Time is the subject here: the pause between two looks at something outside this
        // process, which has no way to notify; the caller waits on its condition, not on this.
        try await Task.sleep(for: interval)
    }
}

/// `waitUntil` for a test that is not async: it blocks its thread meanwhile.
package func waitUntilBlocking(timeout: Duration = .seconds(10), interval: Duration = .milliseconds(10),
                              _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: interval / .seconds(1))
    }
}
