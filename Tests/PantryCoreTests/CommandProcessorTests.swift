import Foundation
import Logging
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import PantryLog
import Testing

@Suite struct CommandProcessorTests {
    @Test func eachCommandOfAMixedBatchGetsItsOwnOutcome() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            let outcomes = processor.process([
                envelope("c1", register("u1")),
                envelope("c2", save("ghost", "r1")),
                envelope("c3", save("u1", "r1")),
                envelope("c4", cart("u1", "r1", 0)),
                envelope("", save("u1", "r2")),
                envelope("c6", save("u1", "r1")),
                envelope("c7", cart("u1", "r1", 2)),
            ])
            #expect(outcomes.map(\.commandId) == ["c1", "c2", "c3", "c4", "", "c6", "c7"])
            #expect(outcomes.map(\.status) == [.accepted, .rejected, .accepted, .rejected, .rejected, .rejected, .accepted])
            #expect(outcomes.map(\.code?.rawValue) == [nil, "unknown_user", nil, "invalid_delta", "invalid_command_id", "already_saved", nil])
            #expect(outcomes.map(\.positions) == [[1], nil, [2, 3], nil, nil, nil, [4]])
            #expect(outcomes.allSatisfy { $0.duplicate == nil })
            #expect(outcomes.filter { $0.status == .rejected }.allSatisfy { $0.message?.isEmpty == false })

            let log = try processor.store.read(after: 0, limit: 100)
            #expect(log.map(\.metadata.commandId) == ["c1", "c3", "c3", "c7"])
            #expect(log.map(\.type) == ["UserRegistered", "RecipeRecorded", "RecipeSaved", "CartAdjusted"])
            #expect(log.map(\.streamId) == ["user-u1", "user-u1", "user-u1", "user-u1"])
            #expect(log.map(\.streamVersion) == [1, 2, 3, 4])
            #expect(processor.head == 4)
            #expect(try foldedState(processor.store, keys: processor.keys) == processor.state)
        }
    }

    @Test func aRejectedCommandLeavesStateAndLogAlone() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            _ = processor.process([envelope("c1", register("u1")), envelope("c2", cart("u1", "r1", 99))])
            let state = processor.state
            let outcomes = processor.process([envelope("c3", cart("u1", "r1", 1)), envelope("c4", register("u1"))])
            #expect(outcomes.map(\.code?.rawValue) == ["cart_out_of_range", "user_exists"])
            #expect(processor.state == state)
            #expect(processor.head == 3)
            #expect(try processor.store.headPosition() == 3)
            #expect(try processor.positions(of: "c3", by: "u1") == nil)
        }
    }

    @Test func aCommandIdSubmittedAgainInALaterBatchIsADuplicate() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            let first = processor.process([envelope("c1", register("u1")), envelope("c2", save("u1", "r1"))])
            #expect(first == [.accepted("c1", 1...1), .accepted("c2", 2...3)])
            // The same id with the same command: the first answer, nothing appended. With another
            // command: refused, never answered with the first command's positions.
            let again = processor.process([envelope("c2", save("u1", "r1")), envelope("c1", register("u9"))])
            #expect(again[0] == .accepted("c2", 2...3, duplicate: true))
            #expect(again[1].status == .rejected && again[1].code == .rejection(.commandIdReused))
            #expect(try processor.store.headPosition() == 3)
            #expect(processor.state.users["u9"] == nil)
            #expect(try processor.positions(of: "c2", by: "u1") == 2...3)
        }
    }

    @Test func aCommandIdTwiceInOneBatchIsADuplicate() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            let outcomes = processor.process([
                envelope("c1", register("u1")),
                envelope("c1", register("u1")),
                envelope("c2", save("u1", "r1")),
                envelope("c2", save("u1", "r1")),
                envelope("c1", register("u1")),
            ])
            #expect(outcomes == [
                .accepted("c1", 1...1), .accepted("c1", 1...1, duplicate: true),
                .accepted("c2", 2...3), .accepted("c2", 2...3, duplicate: true), .accepted("c1", 1...1, duplicate: true),
            ])
            #expect(try processor.store.headPosition() == 3)
            #expect(try processor.store.countsByType() == ["UserRegistered": 1, "RecipeRecorded": 1, "RecipeSaved": 1])
        }
    }

    @Test func aCommandIdReusedForAnotherCommandInOneBatchIsRefused() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            let outcomes = processor.process([
                envelope("c1", register("u1")),
                envelope("c1", register("u2")),
                envelope("c2", save("u1", "r1")),
                envelope("c2", use("u1", "r1", "salt")),
                envelope("c2", save("u1", "r1")),
            ])
            #expect(outcomes.map(\.status) == [.accepted, .rejected, .accepted, .rejected, .accepted])
            #expect(outcomes.map(\.code?.rawValue) == [nil, "command_id_reused", nil, "command_id_reused", nil])
            #expect(outcomes[4] == .accepted("c2", 2...3, duplicate: true))
            #expect(outcomes[1].positions == nil && outcomes[3].positions == nil, "never the other command's positions")
            #expect(processor.state.users["u2"] == nil && processor.state.usedIngredients.isEmpty)
            #expect(try processor.store.countsByType() == ["UserRegistered": 1, "RecipeRecorded": 1, "RecipeSaved": 1])
        }
    }

    @Test func aCommandIdReusedForAnotherCommandAfterARestartIsRefused() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1"))] + cooking("k", "u1", "r1") + [envelope("c2", use("u1", "r1", "olive oil"))])
            }
            // The fingerprints come back from the log, not from memory.
            let reopened = try openProcessor(path)
            let outcomes = reopened.process([envelope("c2", use("u1", "r1", "flour")), envelope("c1", register("u2")),
                                             envelope("c2", use("u1", "r1", "olive oil"))])
            #expect(outcomes.map(\.code?.rawValue) == ["command_id_reused", "command_id_reused", nil])
            #expect(outcomes[2] == .accepted("c2", 5...5, duplicate: true))
            #expect(try reopened.store.headPosition() == 5)
            #expect(reopened.process([envelope("c3", use("u1", "r1", "Olive Oil"))]).map(\.code?.rawValue) == ["already_used"])
        }
    }

    @Test func aRejectedCommandIdMayBeRetried() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            #expect(processor.process([envelope("c1", save("u1", "r1"))]).first?.code == .rejection(.unknownUser))
            _ = processor.process([envelope("c0", register("u1"))])
            #expect(processor.process([envelope("c1", save("u1", "r1"))]) == [.accepted("c1", 2...3)])
        }
    }

    /// The points ever earned are asked of the log, not kept: after any batch the writer holds
    /// none, and the rule still holds across batches, spellings and a restart.
    @Test func theOnePointRuleReadsThePointsFromTheLogAndKeepsNone() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let processor = try openProcessor(path)
            _ = processor.process([envelope("c1", register("u1")), envelope("c2", register("u2"))]
                                  + cooking("k1", "u1", "r1") + cooking("k2", "u2", "r1"))
            #expect(processor.process([envelope("c3", use("u1", "r1", "Olive Oil"))]).map(\.status) == [.accepted])
            #expect(processor.state.earnedPoints.isEmpty && processor.state.unrecordedPoints.isEmpty)
            let outcomes = processor.process([
                envelope("c4", use("u1", "r1", "olive oil")),    // earned in the batch before
                envelope("c5", use("u2", "r1", "olive oil")),    // another user's is theirs
                envelope("c6", use("u1", "r1", "Flour")), envelope("c7", use("u1", "r1", "flour")),
            ])
            #expect(outcomes.map(\.code?.rawValue) == ["already_used", nil, nil, "already_used"])
            #expect(processor.state.earnedPoints.isEmpty)
            #expect(try processor.store.earnedPoints([
                PointKey(userId: "u1", recipeId: "r1", ingredient: "olive oil"), PointKey(userId: "u1", recipeId: "r1", ingredient: "salt"),
                PointKey(userId: "u2", recipeId: "r1", ingredient: "olive oil"),
            ]) == [PointKey(userId: "u1", recipeId: "r1", ingredient: "olive oil"), PointKey(userId: "u2", recipeId: "r1", ingredient: "olive oil")])
            let reopened = try openProcessor(path)
            #expect(reopened.state.earnedPoints.isEmpty)
            #expect(reopened.process([envelope("c8", use("u2", "r1", "OLIVE OIL")), envelope("c9", use("u2", "r1", "salt"))])
                .map(\.code?.rawValue) == ["already_used", nil])
        }
    }

    @Test func laterCommandsOfABatchSeeTheEarlierOnes() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            let outcomes = processor.process([
                envelope("c1", register("u1")), envelope("c2", save("u1", "r1")),
                envelope("c3", .removeSavedRecipe(RemoveSavedRecipe(userId: "u1", recipeId: "r1"))),
                envelope("c4", register("u2")), envelope("k1", cart("u2", "r1", 1)), envelope("k2", cook("u2", "r1")),
                envelope("c5", use("u2", "r1", "Salt")), envelope("c6", use("u2", "r1", " SALT ")),
            ])
            #expect(outcomes.map(\.status) == [.accepted, .accepted, .accepted, .accepted, .accepted, .accepted, .accepted, .rejected])
            #expect(outcomes.last?.code == .rejection(.alreadyUsed))
            #expect(try processor.store.readStream("user-u1").map(\.streamVersion) == [1, 2, 3, 4])
            #expect(try processor.store.readStream("user-u2").map(\.position) == [5, 6, 7, 8])
        }
    }

    @Test func idempotencyAndStateSurviveReopening() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            var state = PantryState()
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1")), envelope("c2", register("u2")), envelope("c3", save("u1", "r1"))]
                                      + cooking("k", "u2", "r9"))
                _ = processor.process([envelope("c4", cart("u1", "r1", 5)), envelope("c5", use("u2", "r9", "Olive Oil")),
                                       envelope("c6", addGrocery("u1", "Flour")), envelope("c7", cart("u1", "r1", 100))])
                state = processor.state
                #expect(processor.head == 10)
            }
            let reopened = try openProcessor(path)
            #expect(reopened.state == state)
            #expect(reopened.head == 10)
            #expect(try reopened.positions(of: "c5", by: "u2") == 9...9)
            #expect(try reopened.positions(of: "c7", by: "u1") == nil)
            let outcomes = reopened.process([envelope("c3", save("u1", "r1")), envelope("c4", cart("u1", "r1", 5)),
                                             envelope("c8", cart("u1", "r1", 1)), envelope("c9", use("u2", "r9", "olive oil")),
                                             envelope("c6", cart("u1", "r1", 1))])
            #expect(outcomes == [.accepted("c3", 3...4, duplicate: true), .accepted("c4", 8...8, duplicate: true),
                                 .accepted("c8", 11...11),
                                 .rejected("c9", Rejection(.alreadyUsed, outcomes[3].message ?? "")),
                                 .rejected("c6", Rejection(.commandIdReused, outcomes[4].message ?? ""))])
            #expect(try reopened.store.readStream("user-u1").map(\.streamVersion) == [1, 2, 3, 4, 5, 6])
            #expect(reopened.state.carts["u1"]?["r1"] == 6)
            #expect(try foldedState(reopened.store, keys: reopened.keys) == reopened.state)
        }
    }

    @Test("a log written before the cooking rule, a farmer's 200 points in a second and no StartCooking, loads with every point; only new points meet the rules")
    func anOldLogOfUncookedPointsLoadsAsItWas() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let farm = RecipeFacts(title: "Feed", image: nil, ingredients: (0..<200).map { "ingredient \($0)" })
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1"))])
                // What the core used to write for points of a recipe nobody cooked.
                let at: Int64 = 1_790_000_000_000
                let old = [Event.recipeRecorded(RecipeRecorded(userId: "u1", recipeId: "feed", facts: farm))]
                    + (0..<200).map { Event.pointEarned(PointEarned(userId: "u1", recipeId: "feed", ingredient: "ingredient \($0)")) }
                _ = try processor.store.append([StreamAppend(streamId: userStream("u1"), expectedVersion: 1, events: try old.enumerated().map { n, event in
                    NewEvent(type: event.type.rawValue, schemaVersion: event.type.schemaVersion, data: try EventCoding.encode(event, vault: processor.keys),
                             metadata: EventMetadata(commandId: "old-\(n)", correlationId: nil, causationId: nil, userId: "u1", recordedAt: at + Int64(n) * 5))
                })])
            }
            let reopened = try openProcessor(path)
            #expect(reopened.head == 202)
            #expect(try reopened.store.earnedPoints((0..<200).map { PointKey(userId: "u1", recipeId: "feed", ingredient: "ingredient \($0)") }).count == 200)
            let outcomes = reopened.process([envelope("c2", use("u1", "feed", "ingredient 0"))]
                                            + cooking("k", "u1", "feed") + [envelope("c3", use("u1", "feed", "ingredient 0"))])
            #expect(outcomes.map(\.code?.rawValue) == ["not_cooking", nil, nil, "already_used"])
            #expect(try foldedState(reopened.store, keys: reopened.keys) == reopened.state)
        }
    }

    @Test func theFactsAnAdapterAddsDoNotMakeAnotherCommand() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            _ = processor.process([envelope("c1", register("u1"))])
            let bare = Command.adjustCart(AdjustCart(userId: "u1", recipeId: "r1", delta: 1))
            #expect(processor.process([envelope("c2", bare)]).first?.code == .rejection(.unknownRecipe))
            // The adapter looks the recipe up and sends the same command, same id, with its facts.
            #expect(processor.process([envelope("c2", cart("u1", "r1", 1))]) == [.accepted("c2", 2...3)])
            // A retry without the facts is the same command: the first answer.
            #expect(processor.process([envelope("c2", bare)]) == [.accepted("c2", 2...3, duplicate: true)])
        }
    }

    @Test func deletingAUserDestroysTheirKeyAndTheLogKeepsATombstone() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1")), envelope("c2", register("u2"))])
                #expect(processor.process([envelope("c3", .deleteUser(DeleteUser(userId: "u1")))]) == [.accepted("c3", 3...3)])
                #expect(processor.state.users["u1"] == nil && !processor.state.usernameTaken("user_u1"))
            }
            let keys = try keyStore(besideLog: path)
            let log = try SQLiteEventStore(path: path)
            let registrations = try log.read(after: 0, limit: 10).filter { $0.type == "UserRegistered" }
            let decoded = try registrations.map {
                try EventCoding.decode(type: $0.type, schemaVersion: $0.schemaVersion, data: $0.data, vault: keys)
            }
            #expect(decoded[0] == .userRegistered(UserRegistered(userId: "u1", account: nil)))
            #expect(decoded[1] == .userRegistered(UserRegistered(userId: "u2", username: "user_u2", email: "u2@example.org",
                                                                 passwordHash: phcHash)))
            let raw = try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
            #expect(raw.range(of: Data("user_u1".utf8)) == nil && raw.range(of: Data("u1@example.org".utf8)) == nil)
            // Reopened, the core folds the tombstone and the deletion into the same state.
            let reopened = try openProcessor(path)
            #expect(reopened.state.users["u1"] == nil && reopened.state.deletedUsers == ["u1"])
            #expect(reopened.process([envelope("c4", register("u1"))]).first?.code == .rejection(.userExists))
        }
    }

    @Test func startingDestroysTheKeyOfADeletedUserThatWasLeftBehind() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let keysFile = URL(fileURLWithPath: path + ".keys")
            let keysBeforeDeletion = dir.appendingPathComponent("keys-before-deletion")
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1")), envelope("c2", register("u2"))])
            }
            try FileManager.default.copyItem(at: keysFile, to: keysBeforeDeletion)
            do {
                let processor = try openProcessor(path)
                #expect(processor.process([envelope("c3", .deleteUser(DeleteUser(userId: "u1")))]) == [.accepted("c3", 3...3)])
            }
            // A stop between logging the deletion and destroying the key: the key file as it was before.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: keysFile.path + suffix) }
            try FileManager.default.copyItem(at: keysBeforeDeletion, to: keysFile)
            func registrations() throws -> [UserRegistered] {
                let reader = try UserKeyStore(path: keysFile.path, readOnly: true)
                return try SQLiteEventStore(path: path).read(after: 0, limit: 10).filter { $0.type == "UserRegistered" }.map {
                    try #require(try EventCoding.decode(type: $0.type, schemaVersion: $0.schemaVersion, data: $0.data,
                                                        vault: reader).userRegistered)
                }
            }
            #expect(try registrations().map { $0.account?.username } == ["user_u1", "user_u2"], "the key is back")

            let restarted = try openProcessor(path)
            #expect(try registrations().map { $0.account?.username } == [nil, "user_u2"], "only the deleted user's key goes")
            #expect(restarted.state.usernameTaken("user_u2") && !restarted.state.usernameTaken("user_u1"))
            #expect(restarted.state.users["u2"] != nil && restarted.state.deletedUsers == ["u1"])
        }
    }
}

extension CommandProcessorTests {
    /// A client's Idempotency-Key (the API's command id `<userId>:<key>`) and a grocery item are not
    /// in the log file as sent or in base64; a retry with the same id is still a duplicate, and the
    /// same id with another command is still refused. Ids the API or an operator made stay as sent.
    @Test func idempotencyKeysAndGroceryItemsAreInTheLogOnlyKeyedOrSealed() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let key = "u1:my-private-retry-key-42"
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1"))])
                #expect(processor.process([envelope(key, addGrocery("u1", "Insulin pens"))]) == [.accepted(key, 2...2)])
            }
            let raw = try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
            for text in [key, "my-private-retry-key-42", "insulin pen", "Insulin pens"] {
                for form in [text, Data(text.utf8).base64EncodedString()] {
                    #expect(raw.range(of: Data(form.utf8)) == nil, "\(form) is in the log file")
                }
            }
            let reopened = try openProcessor(path)
            // The fingerprint of a command holding the item is keyed too: its plain hash could be
            // matched against names tried one by one.
            let stored = try #require(try reopened.keys.commandIdAsStored(key, for: "u1"))
            let fingerprint = try #require(try reopened.store.acceptedCommands([stored])[stored]?.fingerprint)
            #expect(fingerprint != CommandCoding.fingerprint(addGrocery("u1", "Insulin pens")))
            #expect(reopened.process([envelope(key, addGrocery("u1", "Insulin pens"))]) == [.accepted(key, 2...2, duplicate: true)])
            #expect(reopened.process([envelope(key, addGrocery("u1", "Milk"))]).first?.code == .rejection(.commandIdReused))
            #expect(try reopened.store.headPosition() == 2)
        }
    }

    /// A log written before ids were keyed holds them as sent: a retry after the upgrade still
    /// finds its command there.
    @Test func aCommandLoggedBeforeIdsWereKeyedIsStillADuplicate() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            do {
                let processor = try openProcessor(path)
                _ = processor.process([envelope("c1", register("u1"))])
                // Appended as the previous version did: the client's id and the fingerprint as they are.
                let command = save("u1", "r1")
                let metadata = EventMetadata(commandId: "u1:old-key", correlationId: nil, causationId: nil, userId: "u1",
                                             recordedAt: 1, commandFingerprint: CommandCoding.fingerprint(command))
                let event = Event.recipeRecorded(RecipeRecorded(userId: "u1", recipeId: "r1", facts: recipeFacts))
                _ = try processor.store.append([StreamAppend(streamId: "user-u1", expectedVersion: 1, events: [
                    NewEvent(type: event.type.rawValue, schemaVersion: 1, data: try EventCoding.encode(event, vault: processor.keys),
                             metadata: metadata)])])
            }
            let reopened = try openProcessor(path)
            #expect(reopened.process([envelope("u1:old-key", save("u1", "r1"))]) == [.accepted("u1:old-key", 2...2, duplicate: true)])
            #expect(reopened.process([envelope("u1:old-key", save("u1", "r2"))]).first?.code == .rejection(.commandIdReused))
        }
    }

    /// A deletion's fingerprint holds no text and is not keyed: retried once the key is gone, it is
    /// still the same command, answered as a duplicate.
    @Test func aDeletionRetriedAfterItsKeyIsGoneIsADuplicate() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir.appendingPathComponent("events.sqlite").path)
            _ = processor.process([envelope("register-u1", register("u1"))])
            #expect(processor.process([envelope("delete-u1", .deleteUser(DeleteUser(userId: "u1")))]) == [.accepted("delete-u1", 2...2)])
            #expect(processor.process([envelope("delete-u1", .deleteUser(DeleteUser(userId: "u1")))])
                    == [.accepted("delete-u1", 2...2, duplicate: true)])
        }
    }

    /// A deletion is listed outside the log when it commits, and a start lists one that was not.
    @Test func aDeletionIsListedInTheErasureLedger() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let ledger = ErasureLedger(path: dir.appendingPathComponent(ErasureLedger.fileName).path)
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            do {
                let processor = try CommandProcessor(store: SQLiteEventStore(path: path), keys: keyStore(besideLog: path), logger: logger)
                _ = processor.process([envelope("c1", register("u1")), envelope("c2", register("u2")),
                                       envelope("c3", .deleteUser(DeleteUser(userId: "u2")))])
            }
            #expect(try ledger.read().isEmpty, "no ledger was given")
            let processor = try CommandProcessor(store: SQLiteEventStore(path: path), keys: keyStore(besideLog: path),
                                                 erasures: ledger, logger: logger)
            #expect(try ledger.read().map(\.userId) == ["u2"])
            _ = processor.process([envelope("c4", .deleteUser(DeleteUser(userId: "u1")))])
            let listed = try ledger.read()
            #expect(listed.map(\.userId) == ["u2", "u1"])
            #expect(listed.allSatisfy { abs($0.erasedAt.timeIntervalSinceNow) < 60 })
        }
    }
}

private extension Event {
    var userRegistered: UserRegistered? { if case .userRegistered(let e) = self { e } else { nil } }
}
