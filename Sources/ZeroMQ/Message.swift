import CZeroMQ
import Foundation

extension ZMQSocket {
    /// Sends one multipart message, one frame per element.
    ///
    /// Returns `false` when the message could not be queued without blocking (`dontWait`)
    /// or within ``sendTimeout``. libzmq queues multipart messages atomically, so that only
    /// happens before the first frame is accepted. Throws ``ZMQError/terminated(operation:)``
    /// after context shutdown, and EHOSTUNREACH from a ROUTER with ``setRouterMandatory(_:)``
    /// when the first frame names no connected peer.
    @discardableResult
    package func send(_ frames: [Data], dontWait: Bool = false) throws -> Bool {
        precondition(!frames.isEmpty, "a ZeroMQ message has at least one frame")
        let handle = try openHandle("zmq_send")
        let baseFlags = dontWait ? ZMQ_DONTWAIT : 0
        for (index, frame) in frames.enumerated() {
            let flags = index == frames.count - 1 ? baseFlags : baseFlags | ZMQ_SNDMORE
            while true {
                let result = frame.withUnsafeBytes { bytes in
                    zmq_send(handle, bytes.baseAddress, bytes.count, flags)
                }
                if result >= 0 { break }
                let code = zmq_errno()
                if code == EINTR { continue }
                if code == EAGAIN { return false }
                throw ZMQError(operation: "zmq_send", code: code)
            }
        }
        return true
    }

    /// Receives one multipart message.
    ///
    /// Returns `nil` when no message arrived without blocking (`dontWait`) or within
    /// ``receiveTimeout``. Throws ``ZMQError/terminated(operation:)`` after context shutdown.
    package func receive(dontWait: Bool = false) throws -> [Data]? {
        try receiveWithUserId(dontWait: dontWait)?.frames
    }

    /// Receives one multipart message with the `User-Id` its peer's ZAP handler gave when the
    /// connection was admitted (the role a CURVE key is listed with): nil on a socket whose
    /// context runs no ZAP handler (plain security), where nobody proved who they are.
    package func receiveWithUserId(dontWait: Bool = false) throws -> (frames: [Data], userId: String?)? {
        let handle = try openHandle("zmq_msg_recv")
        // zmq_msg_t must stay at one address between init and close, so it lives on the heap.
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        let flags = dontWait ? ZMQ_DONTWAIT : 0
        var frames: [Data] = []
        var userId: String?
        var hasMore = true
        while hasMore {
            zmq_msg_init(message)
            defer { zmq_msg_close(message) }
            while zmq_msg_recv(message, handle, flags) < 0 {
                let code = zmq_errno()
                if code == EINTR { continue }
                // Later frames of a message arrive together with the first, so EAGAIN can only
                // mean "no message yet" before anything was read.
                if code == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError(operation: "zmq_msg_recv", code: code)
            }
            // Every frame from a peer carries its connection's properties; a ROUTER's routing id
            // frame did not before libzmq 4.2, so the first frame that has it is asked.
            if userId == nil, let property = zmq_msg_gets(message, "User-Id") {
                userId = String(cString: property)
            }
            frames.append(Data(bytes: zmq_msg_data(message), count: zmq_msg_size(message)))
            hasMore = zmq_msg_more(message) != 0
        }
        return (frames, userId)
    }
}
