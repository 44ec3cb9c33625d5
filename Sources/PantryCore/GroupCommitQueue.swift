import Foundation
import PantryDomain

/// Lets many concurrent callers submit commands to one `CommandProcessor`: a dedicated writer
/// thread takes every command waiting at that moment as one batch, so the cost of a durable
/// commit (an fsync) is shared by all of them.
public final class GroupCommitQueue: @unchecked Sendable {
    private typealias Waiter = (envelope: CommandEnvelope, reply: CheckedContinuation<CommandOutcome, Never>)

    // `condition` guards `waiting` and `stopped`; the processor is touched only by the writer thread.
    private let condition = NSCondition()
    private var waiting: [Waiter] = []
    private var stopped = false
    private let processor: CommandProcessor
    private let maxBatch: Int
    private var thread: Thread?
    /// Batches committed so far; with `committedCommands`, shows how much each fsync was shared.
    public private(set) var committedBatches = 0
    public private(set) var committedCommands = 0

    public init(processor: CommandProcessor, maxBatch: Int = 4096) {
        self.processor = processor
        self.maxBatch = maxBatch
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "pantry-writer"
        self.thread = thread
        thread.start()
    }

    public func submit(_ envelope: CommandEnvelope) async -> CommandOutcome {
        await withCheckedContinuation { reply in
            condition.lock()
            if stopped {
                condition.unlock()
                reply.resume(returning: .failed(envelope.commandId, "the writer is shutting down"))
                return
            }
            waiting.append((envelope, reply))
            condition.signal()
            condition.unlock()
        }
    }

    /// Finishes what is queued, then stops the writer thread.
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
        while thread?.isFinished == false { usleep(1_000) }
    }

    private func run() {
        while true {
            condition.lock()
            while waiting.isEmpty && !stopped { condition.wait() }
            if waiting.isEmpty && stopped {
                condition.unlock()
                return
            }
            let batch = Array(waiting.prefix(maxBatch))
            waiting.removeFirst(batch.count)
            condition.unlock()

            let outcomes = processor.process(batch.map(\.envelope))
            committedBatches += 1
            committedCommands += batch.count
            for (waiter, outcome) in zip(batch, outcomes) { waiter.reply.resume(returning: outcome) }
        }
    }
}
