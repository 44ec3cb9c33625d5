import CZeroMQ
import Foundation

/// Readiness conditions for ``ZMQPoller``.
package struct ZMQPollEvents: OptionSet, Sendable, Hashable {
    package let rawValue: Int16

    package init(rawValue: Int16) {
        self.rawValue = rawValue
    }

    /// At least one whole message can be received without blocking.
    package static let readable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// At least one message can be sent without blocking.
    package static let writable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLOUT))
}

/// Waits on several sockets (and plain file descriptors) at once with `zmq_poll`.
///
/// Holds its sockets, so like them it belongs to one thread.
package struct ZMQPoller {
    private var registrations: [(socket: ZMQSocket?, fileDescriptor: Int32, events: ZMQPollEvents)] = []

    package init() {}

    /// Adds a socket to watch; results from ``poll(timeoutMilliseconds:)`` come in registration order.
    package mutating func register(_ socket: ZMQSocket, for events: ZMQPollEvents = .readable) {
        registrations.append((socket, 0, events))
    }

    /// Adds a file descriptor to watch (the pipe other threads wake a socket thread with), in the same order.
    package mutating func register(fileDescriptor: Int32, for events: ZMQPollEvents = .readable) {
        registrations.append((nil, fileDescriptor, events))
    }

    /// Waits until a registered socket is ready or the timeout passes (0 returns at once,
    /// -1 waits forever) and returns the ready events per socket, in registration order,
    /// empty for sockets that are not ready. A signal interrupting the wait counts as a
    /// timeout, which poll loops handle anyway.
    package func poll(timeoutMilliseconds: Int) throws -> [ZMQPollEvents] {
        // Handles are looked up on every poll so a socket closed since registration throws
        // ENOTSOCK instead of handing libzmq a freed socket.
        var items = try registrations.map { registration in
            zmq_pollitem_t(
                socket: try registration.socket?.openHandle("zmq_poll"),
                fd: registration.fileDescriptor,
                events: registration.events.rawValue,
                revents: 0
            )
        }
        if zmq_poll(&items, Int32(items.count), timeoutMilliseconds) < 0 {
            let code = zmq_errno()
            if code == EINTR { return Array(repeating: [], count: items.count) }
            throw ZMQError(operation: "zmq_poll", code: code)
        }
        return items.map { ZMQPollEvents(rawValue: $0.revents) }
    }
}
