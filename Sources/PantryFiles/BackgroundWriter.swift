import NIOConcurrencyHelpers
import NIOPosix

/// One background write at a time, on NIO's pool for blocking work: a write asked for while one
/// is under way is skipped (the snapshots are periodic: the next one will come), and a stop can
/// wait for the one under way so that it is not cut off by the process's end.
package final class BackgroundWriter: Sendable {
    /// Writes under way: 0 or 1.
    private let writing = ConditionLock(value: 0)

    package init() {}

    /// Runs `write` in the background unless a write is under way; false when it was skipped.
    @discardableResult
    package func submit(_ write: @escaping @Sendable () -> Void) -> Bool {
        guard writing.lock(whenValue: 0, timeoutSeconds: 0) else { return false }
        writing.unlock(withValue: 1)
        NIOThreadPool.singleton.submit { [writing] _ in
            defer {
                writing.lock()
                writing.unlock(withValue: 0)
            }
            write()
        }
        return true
    }

    /// Returns once no write is under way.
    package func waitForWrites() {
        writing.lock(whenValue: 0)
        writing.unlock()
    }
}
