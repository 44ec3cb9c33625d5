import Dispatch
import Synchronization

/// Work started on another thread now and collected later: catch-up reads the next range of the
/// log while the current one is folded, so reading and folding share the two cores instead of
/// taking turns on one.
final class ReadAhead<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async {
            let outcome = Result { try work() }
            self.result.withLock { $0 = outcome }
            self.done.signal()
        }
    }

    /// Waits for the work to finish and returns what it produced (or throws what it threw). Call it
    /// once.
    func value() throws -> Value {
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
