import PantryDomain
import PantryEventStore
import PantryLog
import PantryWire

/// One command of a batch, from the frame or line it came in to its outcome.
package enum BatchSlot: Sendable, Equatable {
    /// Could not be read as a command (an empty frame, a malformed document, a line too long):
    /// answered as it is, never decided.
    case refused(CommandOutcome)
    /// Read and waiting for its decision. `keyedId` is its id as the idempotency record keys it
    /// (`UserKeyStore.commandIdAsStored`), once the lookup made it: nil for an id kept as sent, or
    /// a user without a key yet.
    case pending(CommandEnvelope, keyedId: String? = nil)
    /// Its id is in the idempotency record: answered as a retry when `sameCommand`, else refused
    /// (an id reused for another command is never answered with the first one's positions).
    case known(CommandEnvelope, AcceptedCommand, sameCommand: Bool)
    /// Its id is that of the earlier slot at `first`, accepted by the rules in this batch:
    /// answered from that slot once the commit has said what became of it.
    case repeated(CommandEnvelope, first: Int)
    /// Refused by a rule; nothing of it is written.
    case rejected(CommandEnvelope, Rejection)
    /// Accepted by the rules and sealed: `append` is written at the commit.
    case decided(CommandEnvelope, StreamAppend)
    /// Written at `positions`, with the events of `append`.
    case committed(CommandEnvelope, StreamAppend, positions: ClosedRange<Int64>)
    /// Not decided or not written (the log could not be read or written, a seal failed): the
    /// command may be retried with the same id.
    case failed(CommandOutcome)
    /// Decided elsewhere: a running core answered it (`pantry submit`).
    case answered(CommandOutcome)

    /// What the rules make of a pending command, for `Batch.decide`.
    package enum Decision: Sendable {
        case rejected(Rejection)
        case decided(StreamAppend)
        case failed(String)
    }
}

/// The commands the core decides and commits together, one slot each, in the order they came;
/// every slot ends with an outcome. A value with a stage per step of the writer (the idempotency
/// lookup, the decisions with their seals, the commit), so each stage is a small function of the
/// slots and is tested without a log (the model: swift-nio's state machines, values that say what
/// comes next). The I/O is `CommandProcessor`'s; the server and `pantry submit` fill a batch with
/// what they read and answer from its outcomes.
package struct Batch: Sendable, Equatable {
    package private(set) var slots: [BatchSlot]

    package init(_ envelopes: [CommandEnvelope] = []) {
        slots = envelopes.map { .pending($0) }
    }

    package var count: Int { slots.count }

    // MARK: Reading

    /// One command document: pending if it reads as a command, else refused with why.
    package mutating func read(_ document: some Collection<UInt8>) {
        switch CommandCoding.decode(document) {
        case .success(let envelope): slots.append(.pending(envelope))
        case .failure(let failure): slots.append(.refused(.rejected(failure.commandId, failure.rejection)))
        }
    }

    /// Something that is not a command at all (an empty frame, a line too long).
    package mutating func refuse(_ rejection: Rejection) {
        slots.append(.refused(.rejected(nil, rejection)))
    }

    /// The commands still waiting for a decision, in order.
    package var pending: [CommandEnvelope] {
        slots.compactMap { if case .pending(let envelope, _) = $0 { envelope } else { nil } }
    }

    /// Every pending command fails with `reason`: a stage could not be done (the log could not be
    /// read), so nothing is decided. The others keep their answers.
    package mutating func fail(_ reason: String, code: CommandOutcome.Code = .storageError) {
        for index in slots.indices {
            if case .pending(let envelope, _) = slots[index] { slots[index] = .failed(.failed(envelope.commandId, reason, code: code)) }
        }
    }

    /// The outcomes a running core sent for the pending commands, in their order (`pantry submit`);
    /// a pending command past the end of `outcomes` fails.
    package mutating func answer(_ outcomes: [CommandOutcome]) {
        var next = outcomes.makeIterator()
        for index in slots.indices {
            guard case .pending(let envelope, _) = slots[index] else { continue }
            slots[index] = next.next().map(BatchSlot.answered)
                ?? .failed(.failed(envelope.commandId, "the core sent no outcome for this command"))
        }
    }

    // MARK: The idempotency lookup

    /// Keys the ids of the pending commands that carry a client's Idempotency-Key (`keyed` gives the
    /// form the record holds, nil for the others): an HMAC and a key lookup per command, once.
    package mutating func keyIds(_ keyed: (CommandEnvelope) throws -> String?) rethrows {
        for index in slots.indices {
            guard case .pending(let envelope, nil) = slots[index], let id = try keyed(envelope) else { continue }
            slots[index] = .pending(envelope, keyedId: id)
        }
    }

    /// The ids to ask the idempotency record for: a keyed id in both forms, since a log written
    /// before ids were keyed holds it as sent.
    package var idsToLookUp: [String] {
        var ids: [String] = []
        ids.reserveCapacity(slots.count)
        for case .pending(let envelope, let keyedId) in slots {
            if let keyedId { ids.append(keyedId) }
            ids.append(envelope.commandId)
        }
        return ids
    }

    /// The pending commands whose id the record holds (`found`, by stored id, the keyed form
    /// first) are answered from it; `sameCommand` says whether the recorded fingerprint is this
    /// command's.
    package mutating func recognise(_ found: [String: AcceptedCommand],
                                    sameCommand: (CommandEnvelope, AcceptedCommand) -> Bool) {
        guard !found.isEmpty else { return }
        for index in slots.indices {
            guard case .pending(let envelope, let keyedId) = slots[index],
                  let accepted = keyedId.flatMap({ found[$0] }) ?? found[envelope.commandId] else { continue }
            slots[index] = .known(envelope, accepted, sameCommand: sameCommand(envelope, accepted))
        }
    }

    // MARK: Deciding and sealing

    /// Decides the pending commands in order with `decision` (which evolves the state by what it
    /// accepts). A command whose id an earlier slot had accepted in this batch is not decided again:
    /// it is answered from that slot after the commit, like a retry.
    package mutating func decide(_ decision: (CommandEnvelope, _ keyedId: String?) -> BatchSlot.Decision) {
        var acceptedHere: [CommandID: Int] = [:]
        for index in slots.indices {
            guard case .pending(let envelope, let keyedId) = slots[index] else { continue }
            if let first = acceptedHere[envelope.commandId] {
                slots[index] = .repeated(envelope, first: first)
                continue
            }
            switch decision(envelope, keyedId) {
            case .rejected(let rejection):
                slots[index] = .rejected(envelope, rejection)
            case .failed(let reason):
                slots[index] = .failed(.failed(envelope.commandId, reason))
            case .decided(let append):
                slots[index] = .decided(envelope, append)
                acceptedHere[envelope.commandId] = index
            }
        }
    }

    // MARK: The commit

    /// What the commit writes, in slot order.
    package var appends: [StreamAppend] {
        slots.compactMap { if case .decided(_, let append) = $0 { append } else { nil } }
    }

    /// The ids the commit writes, as the log stores them.
    package var idsToCommit: [String] {
        appends.compactMap { $0.events.first?.metadata.commandId }
    }

    /// The log wrote `appends` at `ranges`, one each, in order.
    package mutating func committed(_ ranges: [ClosedRange<Int64>]) {
        var next = ranges.makeIterator()
        for index in slots.indices {
            guard case .decided(let envelope, let append) = slots[index] else { continue }
            slots[index] = next.next().map { .committed(envelope, append, positions: $0) }
                ?? .failed(.failed(envelope.commandId, "the log gave no position for this command"))
        }
    }

    /// The log could not be written: every decided command fails with `reason`.
    package mutating func commitFailed(_ reason: String, code: CommandOutcome.Code) {
        for index in slots.indices {
            if case .decided(let envelope, _) = slots[index] { slots[index] = .failed(.failed(envelope.commandId, reason, code: code)) }
        }
    }

    /// The users whose deletion was written.
    package var deletedUsers: [UserID] {
        slots.compactMap {
            if case .committed(let envelope, _, _) = $0, case .deleteUser(let command) = envelope.command { command.userId } else { nil }
        }
    }

    /// The events written, in log order (they go to the feed without being read back).
    package var appended: [RecordedEvent] {
        var events: [RecordedEvent] = []
        for case .committed(_, let append, let range) in slots {
            for (offset, event) in append.events.enumerated() {
                events.append(RecordedEvent(position: range.lowerBound + Int64(offset), streamId: append.streamId,
                                            streamVersion: append.expectedVersion + Int64(offset) + 1, type: event.type,
                                            schemaVersion: event.schemaVersion, data: event.data, metadata: event.metadata))
            }
        }
        return events
    }

    // MARK: Outcomes

    /// One outcome per slot, in order.
    package var outcomes: [CommandOutcome] {
        slots.map(outcome)
    }

    private func outcome(of slot: BatchSlot) -> CommandOutcome {
        switch slot {
        case .refused(let outcome), .failed(let outcome), .answered(let outcome):
            return outcome
        case .pending(let envelope, _):
            return .failed(envelope.commandId, "the command was not decided")
        case .known(let envelope, let accepted, let sameCommand):
            return sameCommand ? .accepted(envelope.commandId, accepted.positions, duplicate: true)
                : .rejected(envelope.commandId, Self.reused(envelope.commandId))
        case .repeated(let envelope, let first):
            guard case .committed(let original, _, let positions) = slots[first] else { return outcome(of: slots[first]) }
            return CommandCoding.fingerprint(original.command) == CommandCoding.fingerprint(envelope.command)
                ? .accepted(envelope.commandId, positions, duplicate: true)
                : .rejected(envelope.commandId, Self.reused(envelope.commandId))
        case .rejected(let envelope, let rejection):
            return .rejected(envelope.commandId, rejection)
        case .decided(let envelope, _):
            return .failed(envelope.commandId, "the command was not written")
        case .committed(let envelope, _, let positions):
            return .accepted(envelope.commandId, positions)
        }
    }

    private static func reused(_ commandId: CommandID) -> Rejection {
        Rejection(.commandIdReused, "command id \(commandId) was already used for another command")
    }
}
