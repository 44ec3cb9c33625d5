import Foundation
import PantryCore
import PantryDomain
import PantryEventStore
import PantryLog
import PantryWire
import Testing

/// The batch as a value: each stage a function of its slots, with no log and no keys.
@Suite struct BatchTests {
    /// An append of `count` events for `envelope`'s user, as the processor makes one.
    private func append(_ envelope: CommandEnvelope, storedId: String? = nil, count: Int = 1, after version: Int64 = 0) -> StreamAppend {
        let metadata = EventMetadata(commandId: storedId ?? envelope.commandId, correlationId: nil, causationId: nil,
                                     userId: envelope.command.userId, recordedAt: 1)
        return StreamAppend(streamId: userStream(envelope.command.userId), expectedVersion: version,
                            events: (0..<count).map { NewEvent(type: "E\($0)", schemaVersion: 1, data: Data("{}".utf8), metadata: metadata) })
    }

    @Test func whatCannotBeReadIsRefusedInItsPlaceAndTheRestWaits() {
        var batch = Batch()
        batch.read(Data(#"{"commandId":"c1","type":"DeleteUser","data":{"userId":"u1"}}"#.utf8))
        batch.read(Data(#"{"commandId":"c2","type":"DeleteUser"#.utf8))
        batch.refuse(Rejection(.tooLarge, "too long"))
        batch.read(Data(#"{"commandId":"c3","type":"NoSuchCommand","data":{}}"#.utf8))
        #expect(batch.pending == [envelope("c1", .deleteUser(DeleteUser(userId: "u1")))])
        #expect(batch.outcomes.map(\.status) == [.failed, .rejected, .rejected, .rejected])
        #expect(batch.outcomes.map(\.code?.rawValue) == ["storage_error", "malformed_json", "too_large", "unknown_command"])
        #expect(batch.outcomes.map(\.commandId) == ["c1", nil, nil, "c3"])
    }

    @Test func aStageThatFailsFailsOnlyThePendingCommands() {
        var batch = Batch()
        batch.refuse(Rejection(.tooLarge, "too long"))
        batch.read(Data(#"{"commandId":"c1","type":"DeleteUser","data":{"userId":"u1"}}"#.utf8))
        batch.fail("the log cannot be read", code: .storageUnavailable)
        #expect(batch.pending.isEmpty)
        #expect(batch.outcomes == [.rejected(nil, Rejection(.tooLarge, "too long")),
                                   .failed("c1", "the log cannot be read", code: .storageUnavailable)])
    }

    @Test func aKeyedIdIsLookedUpInBothFormsAndTheKeyedOneAnswersFirst() {
        var batch = Batch([envelope("u1:k", save("u1", "r1")), envelope("c2", save("u2", "r1")), envelope("u3:k", save("u3", "r1"))])
        batch.keyIds { $0.commandId.contains(":") ? "keyed-\($0.commandId)" : nil }
        #expect(batch.idsToLookUp == ["keyed-u1:k", "u1:k", "c2", "keyed-u3:k", "u3:k"])
        batch.recognise(["keyed-u1:k": AcceptedCommand(positions: 4...5, fingerprint: nil),
                         "u1:k": AcceptedCommand(positions: 1...1, fingerprint: nil),
                         "u3:k": AcceptedCommand(positions: 7...7, fingerprint: nil)]) { _, _ in true }
        #expect(batch.pending == [envelope("c2", save("u2", "r1"))])
        #expect(batch.outcomes[0] == .accepted("u1:k", 4...5, duplicate: true))
        #expect(batch.outcomes[2] == .accepted("u3:k", 7...7, duplicate: true))
    }

    @Test func aKnownIdSentWithAnotherCommandIsRefused() {
        var batch = Batch([envelope("c1", save("u1", "r1"))])
        batch.recognise(["c1": AcceptedCommand(positions: 2...3, fingerprint: 42)]) { _, _ in false }
        #expect(batch.outcomes.map(\.code?.rawValue) == ["command_id_reused"])
        #expect(batch.outcomes[0].positions == nil)
    }

    @Test func aRepeatOfAnAcceptedSlotIsNotDecidedAgainAndIsAnsweredFromItsCommit() {
        let first = envelope("c1", save("u1", "r1"))
        var batch = Batch([first, envelope("c1", save("u1", "r1")), envelope("c1", save("u1", "r2")), envelope("c2", save("u1", "r3"))])
        var decided: [CommandID] = []
        batch.decide { envelope, _ in
            decided.append(envelope.commandId)
            return .decided(append(envelope))
        }
        #expect(decided == ["c1", "c2"])
        #expect(batch.appends.count == 2)
        #expect(batch.idsToCommit == ["c1", "c2"])
        batch.committed([1...1, 2...2])
        #expect(batch.outcomes == [
            .accepted("c1", 1...1), .accepted("c1", 1...1, duplicate: true),
            .rejected("c1", Rejection(.commandIdReused, "command id c1 was already used for another command")),
            .accepted("c2", 2...2),
        ])
    }

    @Test func aRepeatOfARejectedOrUnsealedSlotIsDecidedItself() {
        var batch = Batch([envelope("c1", save("u1", "r1")), envelope("c1", save("u1", "r2")),
                           envelope("c2", save("u1", "r1")), envelope("c2", save("u1", "r1"))])
        var calls = 0
        batch.decide { envelope, _ in
            calls += 1
            switch calls {
            case 1: return .rejected(Rejection(.alreadySaved, "saved"))
            case 3: return .failed("the personal fields could not be sealed")
            default: return .decided(append(envelope))
            }
        }
        #expect(calls == 4)
        batch.committed([3...3, 4...4])
        #expect(batch.outcomes.map(\.status) == [.rejected, .accepted, .failed, .accepted])
        #expect(batch.outcomes.map(\.positions) == [nil, [3], nil, [4]])
    }

    @Test func aFailedCommitFailsTheDecidedCommandsAndTheirRepeatsAlike() {
        var batch = Batch([envelope("c1", save("u1", "r1")), envelope("c2", save("u1", "r9")), envelope("c1", save("u1", "r1"))])
        batch.decide { envelope, _ in
            envelope.commandId == "c2" ? .rejected(Rejection(.alreadySaved, "saved")) : .decided(append(envelope))
        }
        batch.commitFailed("the log could not be written", code: .storageUnavailable)
        #expect(batch.appends.isEmpty)
        #expect(batch.appended.isEmpty)
        #expect(batch.outcomes.map(\.status) == [.failed, .rejected, .failed])
        #expect(batch.outcomes[2] == .failed("c1", "the log could not be written", code: .storageUnavailable))
    }

    @Test func theCommitGivesEachEventItsPositionAndStreamVersion() {
        let deletion = envelope("c2", .deleteUser(DeleteUser(userId: "u2")))
        var batch = Batch([envelope("u1:k", save("u1", "r1")), deletion])
        batch.keyIds { $0.commandId == "u1:k" ? "keyed" : nil }
        var keyedIds: [String?] = []
        batch.decide { envelope, keyedId in
            keyedIds.append(keyedId)
            return .decided(envelope.commandId == "c2" ? append(envelope, after: 5)
                            : append(envelope, storedId: keyedId, count: 2, after: 1))
        }
        #expect(keyedIds == ["keyed", nil])
        #expect(batch.idsToCommit == ["keyed", "c2"])
        #expect(batch.deletedUsers.isEmpty)
        batch.committed([10...11, 12...12])
        #expect(batch.deletedUsers == ["u2"])
        #expect(batch.appended.map(\.position) == [10, 11, 12])
        #expect(batch.appended.map(\.streamVersion) == [2, 3, 6])
        #expect(batch.appended.map(\.streamId) == ["user-u1", "user-u1", "user-u2"])
        #expect(batch.appended.map(\.metadata.commandId) == ["keyed", "keyed", "c2"])
    }

    @Test func aCommitThatAnswersTooFewPositionsFailsTheRestRatherThanGuessing() {
        var batch = Batch([envelope("c1", save("u1", "r1")), envelope("c2", save("u1", "r2"))])
        batch.decide { envelope, _ in .decided(append(envelope)) }
        batch.committed([1...1])
        #expect(batch.outcomes.map(\.status) == [.accepted, .failed])
    }

    @Test func aRunningCoresAnswersFillThePendingSlotsInOrder() {
        var batch = Batch()
        batch.read(Data(#"{"commandId":"c1","type":"DeleteUser","data":{"userId":"u1"}}"#.utf8))
        batch.refuse(Rejection(.tooLarge, "too long"))
        batch.read(Data(#"{"commandId":"c2","type":"DeleteUser","data":{"userId":"u2"}}"#.utf8))
        batch.read(Data(#"{"commandId":"c3","type":"DeleteUser","data":{"userId":"u3"}}"#.utf8))
        batch.answer([.accepted("c1", 1...1), .rejected("c2", Rejection(.unknownUser, "no such user"))])
        #expect(batch.outcomes.map(\.commandId) == ["c1", nil, "c2", "c3"])
        #expect(batch.outcomes.map(\.status) == [.accepted, .rejected, .rejected, .failed])
    }
}
