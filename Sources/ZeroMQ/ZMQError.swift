import CZeroMQ
import Foundation

/// A failed libzmq call.
///
/// `terminated` is its own case because it is the normal way a socket loop learns that
/// ``ZMQContext/shutdown()`` was called: catch it, close the socket and return.
package enum ZMQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ETERM: the socket's context was shut down or terminated.
    case terminated(operation: String)
    /// Any other errno reported by libzmq or the system.
    case failed(operation: String, code: Int32)

    /// Builds the error for the errno libzmq reported for the call that just failed.
    /// `operation` is built after errno is read, since building strings may allocate and clobber it.
    static func last(_ operation: @autoclosure () -> String) -> ZMQError {
        let code = zmq_errno()
        return ZMQError(operation: operation(), code: code)
    }

    init(operation: String, code: Int32) {
        self = code == ETERM ? .terminated(operation: operation) : .failed(operation: operation, code: code)
    }

    /// The errno value behind the error.
    package var code: Int32 {
        switch self {
        case .terminated: ETERM
        case .failed(_, let code): code
        }
    }

    /// The libzmq call that failed, with its argument when that helps (for example the endpoint).
    package var operation: String {
        switch self {
        case .terminated(let operation), .failed(let operation, _): operation
        }
    }

    package var isTerminated: Bool { code == ETERM }

    /// EAGAIN. `send` and `receive` report this as `false` / `nil`, so it is only thrown by
    /// calls that have no such channel.
    package var isWouldBlock: Bool { code == EAGAIN }

    /// EINTR. Blocking calls retry on it, so it is only seen from calls that must not retry.
    package var isInterrupted: Bool { code == EINTR }

    /// The `zmq_strerror` text, which also covers libzmq's own errno values such as ETERM.
    package var message: String { String(cString: zmq_strerror(code)) }

    package var description: String { "\(operation) failed: \(message) (errno \(code))" }
}
