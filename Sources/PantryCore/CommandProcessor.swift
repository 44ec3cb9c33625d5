import Foundation
import Logging
import PantryDomain
import PantryEventStore

/// The single writer: decides batches of commands against the state and appends every accepted
/// event of a batch in one transaction (group commit). Not thread-safe: one thread owns it.
public final class CommandProcessor {
    public let store: any EventStore
    public private(set) var state = PantryState()
    public private(set) var head: Int64 = 0
    private var streamVersions: [String: Int64] = [:]
    /// Accepted command ids and their positions: the idempotency record, rebuilt from the log.
    private var acceptedCommands = AcceptedCommands()
    /// Set when the state could not be rebuilt after a failed append: nothing is decided until it is.
    private var needsReload = false
    private let logger: Logger

    public init(store: any EventStore, logger: Logger = Logger(label: "pantry.core")) throws {
        self.store = store
        self.logger = logger
        try load()
    }

    /// Folds the whole log into memory. Called at start and after a failed append, because the
    /// failed batch's events were already evolved into `state`.
    private func load() throws {
        var state = PantryState()
        var versions: [String: Int64] = [:]
        var accepted = AcceptedCommands()
        var position: Int64 = 0
        while true {
            let batch = try store.read(after: position, limit: 10_000)
            guard let last = batch.last else { break }
            for recorded in batch {
                guard recorded.position == position + 1 else {
                    throw EventStoreError.corrupt("position \(position + 1) is missing")
                }
                let event = try EventCoding.decode(
                    type: recorded.type, schemaVersion: recorded.schemaVersion, data: recorded.data)
                Decider.evolve(&state, event)
                versions[recorded.streamId] = recorded.streamVersion
                let id = recorded.metadata.commandId
                accepted[id] = (accepted[id]?.lowerBound ?? recorded.position)...recorded.position
                position = recorded.position
            }
            position = last.position
        }
        self.state = state
        self.streamVersions = versions
        self.acceptedCommands = accepted
        self.head = position
        logger.info("loaded the log", metadata: ["events": "\(position)", "users": "\(state.users.count)"])
    }

    /// What one batch came to: an outcome per command, and the events it appended, in log order.
    public struct BatchResult: Sendable {
        public var outcomes: [CommandOutcome]
        public var appended: [RecordedEvent]
    }

    /// Decides `batch` in order and commits all accepted events in one transaction. A rejected
    /// command does not affect the others; a failed commit fails every command that would have written.
    public func process(_ batch: [CommandEnvelope], now: Date = Date()) -> [CommandOutcome] {
        processRecording(batch, now: now).outcomes
    }

    /// `process`, also handing back the appended events so they can be published without
    /// reading them back from the log.
    public func processRecording(_ batch: [CommandEnvelope], now: Date = Date()) -> BatchResult {
        if needsReload {
            reloadAfterFailure()
            if needsReload {
                return BatchResult(outcomes: batch.map { .failed($0.commandId, "the log cannot be read; the core is not accepting commands") }, appended: [])
            }
        }
        var appended: [RecordedEvent] = []
        var outcomes = [CommandOutcome?](repeating: nil, count: batch.count)
        var appends: [StreamAppend] = []
        var appendOwners: [Int] = []
        /// A command id seen earlier in this batch and accepted there: answered like a retry.
        var acceptedInBatch: [CommandID: Int] = [:]
        var repeats: [(index: Int, of: Int)] = []
        let recordedAt = Int64(now.timeIntervalSince1970 * 1000)

        for (index, envelope) in batch.enumerated() {
            if let positions = acceptedCommands[envelope.commandId] {
                outcomes[index] = .accepted(envelope.commandId, positions, duplicate: true)
                continue
            }
            if let first = acceptedInBatch[envelope.commandId] {
                repeats.append((index, first))
                continue
            }
            switch Decider.decide(envelope, state: state) {
            case .failure(let rejection):
                outcomes[index] = .rejected(envelope.commandId, rejection)
            case .success(let events):
                let stream = userStream(envelope.command.userId)
                let metadata = EventMetadata(
                    commandId: envelope.commandId, correlationId: envelope.correlationId,
                    causationId: envelope.causationId, userId: envelope.command.userId, recordedAt: recordedAt)
                let expected = streamVersions[stream] ?? 0
                appends.append(StreamAppend(streamId: stream, expectedVersion: expected, events: events.map {
                    NewEvent(type: EventCoding.typeName(of: $0), schemaVersion: EventCoding.currentSchemaVersion,
                             data: EventCoding.encode($0), metadata: metadata)
                }))
                appendOwners.append(index)
                streamVersions[stream] = expected + Int64(events.count)
                for event in events { Decider.evolve(&state, event) }
                acceptedInBatch[envelope.commandId] = index
            }
        }

        if !appends.isEmpty {
            do {
                let ranges = try store.append(appends)
                for ((owner, append), range) in zip(zip(appendOwners, appends), ranges) {
                    let commandId = batch[owner].commandId
                    acceptedCommands[commandId] = range
                    outcomes[owner] = .accepted(commandId, range)
                    for (offset, event) in append.events.enumerated() {
                        appended.append(RecordedEvent(
                            position: range.lowerBound + Int64(offset), streamId: append.streamId,
                            streamVersion: append.expectedVersion + Int64(offset) + 1, type: event.type,
                            schemaVersion: event.schemaVersion, data: event.data, metadata: event.metadata))
                    }
                }
                head = ranges.last?.upperBound ?? head
            } catch {
                logger.error("append failed; nothing of this batch was written", metadata: ["error": "\(error)"])
                for owner in appendOwners { outcomes[owner] = .failed(batch[owner].commandId, "the log could not be written: \(error)") }
                reloadAfterFailure()
            }
        }
        for (index, first) in repeats {
            if outcomes[first]?.status == .accepted, let range = acceptedCommands[batch[first].commandId] {
                outcomes[index] = .accepted(batch[index].commandId, range, duplicate: true)
            } else {
                outcomes[index] = outcomes[first]
            }
        }
        // Every index was answered above: by the idempotency record, a rejection, the append or a repeat.
        return BatchResult(outcomes: outcomes.map { $0! }, appended: appended)
    }

    /// The failed batch was already evolved into `state`; only the log can say what is true now.
    private func reloadAfterFailure() {
        do {
            try load()
            needsReload = false
        } catch {
            needsReload = true
            logger.critical("cannot reload the log after a failed append", metadata: ["error": "\(error)"])
        }
    }

    /// The positions of an accepted command, if this id was accepted before.
    public func positions(of commandId: CommandID) -> ClosedRange<Int64>? { acceptedCommands[commandId] }
}
