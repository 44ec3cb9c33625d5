import CZeroMQ
import Foundation

/// A libzmq socket.
///
/// Not Sendable: libzmq sockets must not be used from two threads at once, so create, use
/// and close each socket on one thread. To stop a thread blocked in `receive` or `send`,
/// call ``ZMQContext/shutdown()`` from elsewhere; the blocked call throws
/// ``ZMQError/terminated(operation:)``.
///
/// New sockets get a linger of 0: pending outbound messages are dropped on close, so closing
/// sockets and terminating the context never wait for unreachable peers. Call
/// ``setLinger(milliseconds:)`` when delivery at close matters more than a prompt exit.
package final class ZMQSocket {
    package let context: ZMQContext
    package let type: ZMQSocketType
    private var handle: UnsafeMutableRawPointer?

    package init(context: ZMQContext, type: ZMQSocketType) throws {
        guard let handle = zmq_socket(context.handle, type.cValue) else {
            throw ZMQError.last("zmq_socket(\(type))")
        }
        self.context = context
        self.type = type
        self.handle = handle
        try setLinger(milliseconds: 0)
    }

    deinit {
        close()
    }

    /// Closes the socket; later calls on it throw ENOTSOCK. Calling it again does nothing.
    package func close() {
        guard let handle else { return }
        zmq_close(handle)
        self.handle = nil
    }

    package var isClosed: Bool { handle == nil }

    package func bind(_ endpoint: String) throws {
        let handle = try openHandle("zmq_bind(\(endpoint))")
        try secure(binding: endpoint)
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Binds `endpoint`, first removing the file an `ipc://` endpoint's last owner left when it was
    /// killed (SIGKILL leaves it behind). Only for an owner whose lock proves nobody else serves
    /// there: the core's writer lock, a worker's, the fetch worker's.
    package func bindReplacingStaleFile(_ endpoint: String) throws {
        if endpoint.hasPrefix("ipc://") { try? FileManager.default.removeItem(atPath: String(endpoint.dropFirst("ipc://".count))) }
        try bind(endpoint)
    }

    package func connect(_ endpoint: String) throws {
        let handle = try openHandle("zmq_connect(\(endpoint))")
        try secure(connecting: endpoint)
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// The handle for a libzmq call, or ENOTSOCK once closed (libzmq would read freed memory).
    func openHandle(_ operation: @autoclosure () -> String) throws -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError.failed(operation: operation(), code: ENOTSOCK) }
        return handle
    }
}

@available(*, unavailable, message: "use each ZMQSocket from a single thread")
extension ZMQSocket: Sendable {}
