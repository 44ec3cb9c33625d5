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

    /// The core answered a batch frame with something other than the outcomes of its commands,
    /// in order: a frame it refused whole, or a peer that is not a Pantry core.
    package struct UnexpectedAnswer: Error, CustomStringConvertible {
        package var description: String
    }

    /// Sends `envelopes` as batch frames (`CommandBatch`, each within its bounds), all of them
    /// before the first answer is read, and returns the outcomes in the same order. One frame per
    /// run rather than one per command: the core pays its socket once per frame.
    package func submitInBatches(_ envelopes: [CommandEnvelope]) throws -> [CommandOutcome] {
        let documents = envelopes.map(CommandCoding.encode)
        let runs = CommandBatch.runs(of: documents)
        for run in runs { try socket.send([CommandBatch.join(Array(documents[run]))]) }
        var outcomes: [CommandOutcome] = []
        outcomes.reserveCapacity(envelopes.count)
        for run in runs {
            guard let frames = try socket.receive(), let body = frames.last else { throw Timeout(endpoint: endpoint) }
            let answers = (try? CommandBatch.split(body)) ?? []
            guard answers.count == run.count else {
                throw UnexpectedAnswer(description: "the core answered a batch of \(run.count) commands with \(answers.count) outcomes: \(String(decoding: body.prefix(200), as: UTF8.self))")
            }
            for (index, answer) in zip(run, answers) {
                // A command the core could not read back is refused without its id.
                guard let outcome = try? CommandOutcome(json: answer),
                      outcome.commandId.map({ $0 == envelopes[index].commandId }) ?? true else {
                    throw UnexpectedAnswer(description: "the core's answer is not the outcome of command \(envelopes[index].commandId)")
                }
                outcomes.append(outcome)
            }
        }
        return outcomes
    }

    package func submit(_ envelopes: [CommandEnvelope]) throws -> [CommandOutcome] {
        try submit(documents: envelopes.map(CommandCoding.encode)).map(CommandOutcome.init(json:))
    }

    package func submit(_ envelope: CommandEnvelope) throws -> CommandOutcome {
        try submit([envelope])[0]
    }
}
