import Foundation
import PantryWire
import PantryDomain
import ZeroMQ

/// Sends commands to the core over a DEALER socket. Requests may be pipelined: the core answers a
/// connection's requests in the order it received them. One client per thread, like its socket.
package final class CommandClient {
    package struct Timeout: Error, CustomStringConvertible {
        package var endpoint: String
        package var description: String { "the core at \(endpoint) did not answer in time" }
    }

    private let socket: ZMQSocket
    private let endpoint: String

    package init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(10)) throws {
        socket = try ZMQSocket(context: context, type: .dealer)
        try socket.setReceiveTimeout(milliseconds: Int(timeout / .milliseconds(1)))
        // Pipelined requests and their answers are bounded by the caller's window, not by ZeroMQ.
        try socket.setSendHighWaterMark(0)
        try socket.setReceiveHighWaterMark(0)
        try socket.connect(endpoint)
        self.endpoint = endpoint
    }

    /// Sends raw command documents and returns the raw outcome documents, in the same order.
    package func submit(documents: [Data]) throws -> [Data] {
        for document in documents { try socket.send([document]) }
        return try documents.map { _ in
            guard let frames = try socket.receive(), let body = frames.last else { throw Timeout(endpoint: endpoint) }
            return body
        }
    }

    package func submit(_ envelopes: [CommandEnvelope]) throws -> [CommandOutcome] {
        try submit(documents: envelopes.map(CommandCoding.encode)).map(CommandOutcome.init(json:))
    }

    package func submit(_ envelope: CommandEnvelope) throws -> CommandOutcome {
        try submit([envelope])[0]
    }
}
