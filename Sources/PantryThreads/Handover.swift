import Synchronization

/// A value that is not Sendable (the core's `CommandProcessor`), made on one thread and handed to
/// the service thread that will own it from then on: `sending` says the maker keeps no use of it,
/// and `take()` gives it once.
package final class Handover<Value>: Sendable {
    private let value: Mutex<Value?>

    package init(_ value: consuming sending Value) {
        self.value = Mutex(value)
    }

    /// The value, the first time; nil after.
    package func take() -> sending Value? {
        value.withLock { $0.take() }
    }
}
