import NIOConcurrencyHelpers
import NIOPosix
import Synchronization

/// Work started on NIO's pool for blocking work now and collected later: catch-up reads the next
/// range of the log while the current one is folded, so reading and folding share the two cores
/// instead of taking turns on one.
final class ReadAhead<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    /// True once the work has finished.
    private let done = ConditionLock(value: false)

    init(_ work: @escaping @Sendable () throws -> Value) {
        NIOThreadPool.singleton.submit { [self] _ in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.lock()
            done.unlock(withValue: true)
        }
    }

    /// Waits for the work to finish and returns what it produced (or throws what it threw). Call it
    /// once.
    func value() throws -> Value {
        done.lock(whenValue: true)
        done.unlock()
        return try result.withLock { $0! }.get()
    }
}
