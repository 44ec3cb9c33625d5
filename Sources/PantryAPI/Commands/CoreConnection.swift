import Foundation
import Logging
import PantryBus
import PantryWire
import PantryDomain
import PantryHTTP
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The API's line to the core, over a `RequestConnection`: the one way async code hands work to a
/// socket thread here. The commands submitted while the socket thread was busy or asleep go as one
/// batch frame (`CommandBatch`) the moment it wakes, whatever else is in flight, and the core
/// group-commits whatever is waiting when it next reads its socket and answers each frame with
/// one frame. A command submitted alone goes alone, as one command document. (The API used to send a batch
/// only once the previous batch was answered, so a command that came just after a batch left
/// waited for that batch's round trip and then its own.) An answer that comes after its caller
/// gave up is dropped by its id, never taken for another command's. A service: its connection's
/// socket thread runs in `run()`. The API's `CommandPort`.
package final class CoreConnection: Service, CommandPort {
    private let connection: RequestConnection
    private let logger: Logger
    /// When the last failure was logged: while the core is down every command fails, and one line
    /// a second says so.
    private let lastLogged = Mutex<ContinuousClock.Instant?>(nil)

    package init(context: ZMQContext, endpoint: String, timeout: Duration, logger: Logger) throws {
        connection = try RequestConnection(
            context: context, endpoint: endpoint, timeout: timeout,
            batching: .init(runs: CommandBatch.runs(of:), join: CommandBatch.join, split: { try? CommandBatch.split($0) }),
            logger: logger)
        self.logger = logger
    }

    package func run() async throws {
        try await connection.run()
    }

    package func submit(_ envelope: CommandEnvelope) async throws -> CommandOutcome {
        let answer: Data
        do {
            answer = try await connection.send(CommandCoding.encode(envelope))
        } catch let failure as RequestConnection.Unavailable {
            throw unavailable(failure.description)
        }
        guard let outcome = try? CommandOutcome(json: answer), outcome.commandId == envelope.commandId else {
            throw unavailable("the core's answer is not the outcome of command \(envelope.commandId)")
        }
        return outcome
    }

    private func unavailable(_ reason: String) -> PortUnavailable {
        let now = ContinuousClock.now
        let due = lastLogged.withLock { last in
            guard last.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            last = now
            return true
        }
        if due { logger.warning("the core did not answer", metadata: ["reason": "\(reason)"]) }
        return PortUnavailable(reason)
    }
}
