import Foundation
import Logging
import PantryBus
import PantryCore
import PantryDomain
import ZeroMQ

/// The API's line to the core: one thread owns a DEALER socket (`CommandClient`); async callers
/// queue commands and get their outcomes back. Whatever queued while a batch was in flight is sent
/// as the next batch, pipelined, so concurrent requests share round trips.
public final class CoreConnection: @unchecked Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    private typealias Waiter = (envelope: CommandEnvelope, continuation: CheckedContinuation<CommandOutcome, any Error>)

    private let context: ZMQContext
    private let endpoint: String
    private let timeout: Duration
    private let logger: Logger
    // Guards `pending` and `stopped`; the thread sleeps on it while there is nothing to send.
    private let condition = NSCondition()
    private var pending: [Waiter] = []
    private var stopped = false

    public init(context: ZMQContext, endpoint: String, timeout: Duration, logger: Logger) {
        self.context = context
        self.endpoint = endpoint
        self.timeout = timeout
        self.logger = logger
    }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "core-connection"
        thread.start()
    }

    /// Fails what is still queued and ends the thread once its batch in flight is answered.
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    public func submit(_ envelope: CommandEnvelope) async throws -> CommandOutcome {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard !stopped else {
                continuation.resume(throwing: Unavailable(description: "the API is shutting down"))
                return
            }
            pending.append((envelope, continuation))
            condition.signal()
        }
    }

    private func run() {
        var client: CommandClient?
        while let batch = nextBatch() {
            var answered = 0
            do {
                let connected = try client ?? CommandClient(context: context, endpoint: endpoint, timeout: timeout)
                client = connected
                let outcomes = try connected.submit(batch.map(\.envelope))
                for (waiter, outcome) in zip(batch, outcomes) {
                    // The core answers in order; anything else means the socket is out of step.
                    guard outcome.commandId == waiter.envelope.commandId else {
                        throw Unavailable(description: "the core answered another command")
                    }
                    waiter.continuation.resume(returning: outcome)
                    answered += 1
                }
            } catch {
                // A fresh socket next time: answers that arrive late go to the closed one instead of
                // being taken for the answers to later commands.
                client = nil
                logger.warning("the core did not answer", metadata: ["error": "\(error)", "commands": "\(batch.count)"])
                let failure = Unavailable(description: "the core did not answer in time; retry with the same Idempotency-Key")
                for waiter in batch.dropFirst(answered) {
                    waiter.continuation.resume(throwing: failure)
                }
            }
        }
    }

    private func nextBatch() -> [Waiter]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !stopped { condition.wait() }
        if stopped {
            let failure = Unavailable(description: "the API is shutting down")
            for waiter in pending { waiter.continuation.resume(throwing: failure) }
            pending = []
            return nil
        }
        defer { pending = [] }
        return pending
    }
}
