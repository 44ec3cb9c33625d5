import Foundation
import ZeroMQ

/// Asks a worker (a projection worker, the fetch worker) over its ROUTER socket (`schemas/zeromq.md`).
/// One client per thread, like its socket.
package final class RequestClient {
    package enum Failure: Error, CustomStringConvertible {
        case timeout(endpoint: String)
        case refused(code: String, message: String)

        package var description: String {
            switch self {
            case .timeout(let endpoint): "the worker at \(endpoint) did not answer in time"
            case .refused(let code, let message): "\(code): \(message)"
            }
        }
    }

    private let socket: ZMQSocket
    private let endpoint: String

    package init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(15)) throws {
        socket = try ZMQSocket(context: context, type: .dealer)
        try socket.setReceiveTimeout(milliseconds: Int(timeout / .milliseconds(1)))
        try socket.connect(endpoint)
        self.endpoint = endpoint
    }

    /// Sends one request document and returns the reply document as it came.
    package func send(_ request: Data) throws -> Data {
        guard let reply = try exchange(request).last else { throw Failure.timeout(endpoint: endpoint) }
        return reply
    }

    /// Sends one request document and returns every frame of the reply (the log service's
    /// answers are a header and one frame per event).
    package func exchange(_ request: Data) throws -> [Data] {
        try socket.send([request])
        guard let frames = try socket.receive() else { throw Failure.timeout(endpoint: endpoint) }
        return frames
    }

    /// Sends one request document without waiting for its reply, which `reply()` takes: for a
    /// caller that watches something else while it waits.
    package func post(_ request: Data) throws {
        try socket.send([request])
    }

    /// The reply document to what `post` sent, or nil when none came within the client's timeout
    /// (it may still come: ask again).
    package func reply() throws -> Data? {
        try socket.receive()?.last
    }

    /// A query by name with its parameters; waits until the worker has applied `after`. Returns the
    /// reply's `result`, or throws the worker's refusal.
    package func query(_ parameters: [String: Any], after: Int64? = nil) throws -> Any {
        var request = parameters
        if let after { request["after"] = after }
        let reply = try JSONSerialization.jsonObject(with: send(try JSONSerialization.data(withJSONObject: request)))
        guard let object = reply as? [String: Any] else { throw Failure.refused(code: "bad_reply", message: "not a JSON object") }
        if let error = object["error"] as? [String: Any] {
            throw Failure.refused(code: error["code"] as? String ?? "error", message: error["message"] as? String ?? "")
        }
        return object["result"] ?? NSNull()
    }
}
