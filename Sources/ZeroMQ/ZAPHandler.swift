import CZeroMQ
import Foundation

/// The context's ZAP handler (ZeroMQ RFC 27): libzmq asks it about every CURVE client before the
/// handshake completes, on `inproc://zeromq.zap.01` in the same context, and the client fails
/// the handshake (ZMQ_EVENT_HANDSHAKE_FAILED_AUTH on its side) unless the answer is 200.
///
/// It is bound in the context's `init`, before any socket exists: libzmq lets every client key in
/// (the "Stonehouse" pattern) when a CURVE server has no handler to ask, and the option that
/// would refuse them instead (ZMQ_ZAP_ENFORCE_DOMAIN) is a draft API this libzmq lacks.
///
/// It runs on a thread of its own and holds the raw socket rather than a ``ZMQSocket``, which
/// would retain the context: the loop ends, and the socket closes, when the context is shut down
/// or terminated.
enum ZAPHandler {
    /// The ZAP domain of local (`ipc://`, `inproc://`) listeners.
    static let localDomain = "local"

    static func start(context: UnsafeMutableRawPointer, policy: ZMQCurvePolicy,
                      onRefusal: (@Sendable (ZMQRefusal) -> Void)?) throws {
        guard let socket = zmq_socket(context, ZMQ_REP) else { throw ZMQError.last("zmq_socket(ZAP)") }
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size)
        guard zmq_bind(socket, "inproc://zeromq.zap.01") == 0 else {
            let error = ZMQError.last("zmq_bind(inproc://zeromq.zap.01)")
            zmq_close(socket)
            throw error
        }
        let handle = UInt(bitPattern: socket)
        let thread = Thread {
            let socket = UnsafeMutableRawPointer(bitPattern: handle)!
            while let request = receive(socket) {
                let answer = reply(to: request, policy: policy)
                if let onRefusal, answer[2] == Data("400".utf8) {
                    onRefusal(ZMQRefusal(address: String(decoding: request[3], as: UTF8.self),
                                         endpoint: String(decoding: request[2], as: UTF8.self),
                                         reason: String(decoding: answer[3], as: UTF8.self)))
                }
                guard send(socket, answer) else { break }
            }
            zmq_close(socket)
        }
        thread.name = "zeromq-zap"
        thread.start()
    }

    /// The reply to one request: version, request id, status code and text, user id, metadata.
    /// The user id is the client's name (its role); servers trust the handshake, so it is for
    /// libzmq's `User-Id` message property and nothing reads it back.
    static func reply(to request: [Data], policy: ZMQCurvePolicy) -> [Data] {
        // version, request id, domain, address, identity, mechanism, credentials (CURVE: the 32-byte key; NULL: none)
        guard request.count >= 6, request[0] == Data("1.0".utf8) else {
            return [Data("1.0".utf8), request.count > 1 ? request[1] : Data(), Data("500".utf8), Data("malformed ZAP request".utf8), Data(), Data()]
        }
        let domain = String(decoding: request[2], as: UTF8.self)
        let answer: Result<String, ZMQSecurityError>
        if request[5] == Data("NULL".utf8), domain == localDomain {
            // An ipc:// or inproc:// peer: every tcp:// listener is a CURVE server, so NULL comes
            // only through a local listener, whose file permissions already admitted it.
            answer = .success(localDomain)
        } else if request[5] == Data("CURVE".utf8), request.count == 7, let key = z85(request[6]) {
            answer = policy.admit(clientKey: key, domain: domain)
        } else {
            answer = .failure(ZMQSecurityError("not CURVE"))
        }
        switch answer {
        case .success(let name):
            return [request[0], request[1], Data("200".utf8), Data("OK".utf8), Data(name.utf8), Data()]
        case .failure(let refusal):
            return [request[0], request[1], Data("400".utf8), Data(refusal.description.utf8), Data(), Data()]
        }
    }

    private static func z85(_ key: Data) -> String? {
        guard key.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let encoded = key.withUnsafeBytes { bytes in
            zmq_z85_encode(&text, bytes.bindMemory(to: UInt8.self).baseAddress, 32)
        }
        return encoded == nil ? nil : ZMQCurveKeyPair.z85Text(text)
    }

    /// One multipart request, or nil once the context is shut down.
    private static func receive(_ socket: UnsafeMutableRawPointer) -> [Data]? {
        // zmq_msg_t must stay at one address between init and close, so it lives on the heap.
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        var frames: [Data] = []
        var hasMore = true
        while hasMore {
            zmq_msg_init(message)
            defer { zmq_msg_close(message) }
            while zmq_msg_recv(message, socket, 0) < 0 {
                guard zmq_errno() == EINTR else { return nil }
            }
            frames.append(Data(bytes: zmq_msg_data(message), count: zmq_msg_size(message)))
            hasMore = zmq_msg_more(message) != 0
        }
        return frames
    }

    private static func send(_ socket: UnsafeMutableRawPointer, _ frames: [Data]) -> Bool {
        for (index, frame) in frames.enumerated() {
            let flags = index == frames.count - 1 ? 0 : ZMQ_SNDMORE
            while frame.withUnsafeBytes({ zmq_send(socket, $0.baseAddress, $0.count, flags) }) < 0 {
                guard zmq_errno() == EINTR else { return false }
            }
        }
        return true
    }
}
