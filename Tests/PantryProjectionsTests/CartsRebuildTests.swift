import Foundation
import GRDB
import PantryDomain
import PantryEventStore
import PantryLog
import Testing
@testable import PantryProjections

/// A carts rebuild folds every cart in memory and writes each line once at the end (`CartsFold`);
/// it must leave exactly the rows the live worker's per-event fold leaves.
@Suite struct CartsRebuildTests {
    @Test func aRebuildHeldInMemoryEqualsThePerEventFold() throws {
        let h = try randomHistory(seed: 0xCA27, commands: 3_000)
        // Every rule at least once, whatever the random part did: up, down to zero and back (a
        // new position, no timer), a timer restarted, a timer on a line since removed, and a user
        // deleted with lines and timers while others' carts go on.
        h.register("mid", "mid")
        h.register("late", "late")
        h.run(.adjustCart(AdjustCart(userId: "mid", recipeId: "r1", delta: 2, recipe: History.facts("Recipe r1"))))
        h.run(.adjustCart(AdjustCart(userId: "late", recipeId: "r1", delta: 1, recipe: History.facts("Recipe r1"))))
        h.run(.startCooking(StartCooking(userId: "mid", recipeId: "r1", minutes: 20)))
        h.run(.adjustCart(AdjustCart(userId: "mid", recipeId: "r1", delta: -2)))
        h.run(.adjustCart(AdjustCart(userId: "mid", recipeId: "r1", delta: 1)))
        h.run(.adjustCart(AdjustCart(userId: "mid", recipeId: "r2", delta: 3, recipe: History.facts("Recipe r2", image: "https://img.example.org/r2.jpg"))))
        h.run(.startCooking(StartCooking(userId: "mid", recipeId: "r2", minutes: 5)))
        h.run(.startCooking(StartCooking(userId: "late", recipeId: "r1", minutes: 7)))
        h.run(.deleteUser(DeleteUser(userId: "mid")))
        h.run(.startCooking(StartCooking(userId: "late", recipeId: "r1", minutes: 9)))
        h.run(.adjustCart(AdjustCart(userId: "late", recipeId: "r3", delta: 4, recipe: History.facts("Recipe r3"))))

        let events = try h.events()
        let decoded = try events.map { try EventCoding.decode(type: $0.type, schemaVersion: $0.schemaVersion, data: $0.data, vault: h.keys) }
        #expect(decoded.contains { if case .cartAdjusted(let e) = $0 { e.count == 0 } else { false } })
        #expect(decoded.contains { if case .cookingStarted = $0 { true } else { false } })
        #expect(decoded.contains { if case .userDeleted = $0 { true } else { false } })

        let live = try h.caughtUp(CartsProjection())
        let lines = try live.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM cart_lines") ?? 0 }
        let timers = try live.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM cooking") ?? 0 }
        #expect(lines > 20 && timers > 0, "lines \(lines), timers \(timers)")
        #expect(try live.read { try CartsProjection.lines("mid", in: $0) }.isEmpty)
        #expect(try live.read { try CartsProjection.cooking("mid", in: $0, now: h.clockMillis) }.isEmpty)
        #expect(try live.read { try CartsProjection.lines("late", in: $0) }.map(\.recipeId) == ["r1", "r3"])
        #expect(try live.read { try CartsProjection.cooking("late", in: $0, now: h.clockMillis) }.map { [$0.recipeId.rawValue: $0.minutes] }
                == [["r1": 9]])
        // Batches that end anywhere, one event each, and the whole log in one.
        for batchSize in [1, 7, 100, 100_000] {
            let rebuilt = try Replayer.rebuild(CartsProjection(), directory: h.directory.appendingPathComponent("rebuilt-\(batchSize)"),
                                               from: h.log, keys: h.keys, batchSize: batchSize)
            #expect(rebuilt.checkpoint == (try h.log.headPosition()))
            #expect(rebuilt.checksum == (try live.checksum()), "batch size \(batchSize)")
        }
    }

    /// SQLite keys lines by the recipe id's bytes; Swift's `==` takes a precomposed "é" and "e" with
    /// a combining accent for one string, so a fold keyed by `String` would merge the two lines.
    @Test func recipeIdsThatDifferOnlyInTheirNormalisationAreTwoLines() throws {
        let h = try History()
        let precomposed = "cr\u{E9}pe", decomposed = "cre\u{301}pe"
        #expect(precomposed == decomposed)
        try append(h, [
            ("CartAdjusted", 1, #"{"userId":"u1","recipeId":"\#(precomposed)","title":"A","delta":1,"count":1}"#),
            ("CartAdjusted", 1, #"{"userId":"u1","recipeId":"\#(decomposed)","title":"B","delta":2,"count":2}"#),
            ("CookingStarted", 1, #"{"userId":"u1","recipeId":"\#(decomposed)","minutes":10}"#),
            ("CartAdjusted", 1, #"{"userId":"u1","recipeId":"\#(precomposed)","title":"A","delta":-1,"count":0}"#),
            ("CookingStarted", 3, #"{"userId":"u1","recipeId":"\#(precomposed)","minutes":5,"title":"A"}"#),
        ])
        let live = try h.caughtUp(CartsProjection())
        let rebuilt = try Replayer.rebuild(CartsProjection(), directory: h.directory.appendingPathComponent("rebuilt"), from: h.log, keys: h.keys)
        #expect(rebuilt.checksum == (try live.checksum()))
        let left = try live.read { try CartsProjection.lines("u1", in: $0) }
        #expect(left.count == 1 && left.first?.recipeId.rawValue.unicodeScalars.elementsEqual(decomposed.unicodeScalars) == true)
        #expect(left.first?.count == 2)
        // Two timers too; the old event's title is its line's.
        let cooking = try live.read { try CartsProjection.cooking("u1", in: $0, now: 0) }
        #expect(Set(cooking.map { "\($0.title) \($0.minutes)" }) == ["B 10", "A 5"])
    }

    @Test func aCartEventOfAnUnknownVersionOrShapeIsRefusedByTheRebuildAsByTheWorker() throws {
        let bad: [(version: Int, json: String)] = [
            (3, #"{"userId":"u1","recipeId":"r1","title":"T","delta":1,"count":1}"#),
            (1, #"{"userId":"u1","recipeId":"r1","title":"T","delta":1}"#),
            (1, #"{"userId":"u1","recipeId":"r1","title":"T","delta":1,"count":"one"}"#),
        ]
        for (version, json) in bad {
            let h = try History()
            try append(h, [("CartAdjusted", 1, #"{"userId":"u1","recipeId":"r0","title":"T","delta":1,"count":1}"#),
                           ("CartAdjusted", version, json)])
            for (name, refuse) in [("rebuild", { _ = try Replayer.rebuild(CartsProjection(), directory: h.directory.appendingPathComponent("r"),
                                                                           from: h.log, keys: h.keys) }),
                                   ("worker", { _ = try h.store(CartsProjection()).catchUp(from: h.log) })] as [(String, () throws -> Void)] {
                do {
                    try refuse()
                    Issue.record("\(name) accepted \(json) (version \(version))")
                } catch ProjectionError.undecodable(let position, _) {
                    #expect(position == 2, "\(name)")
                }
            }
        }
    }

    private func append(_ h: History, _ events: [(type: String, version: Int, json: String)]) throws {
        for (index, event) in events.enumerated() {
            let new = NewEvent(type: event.type, schemaVersion: event.version, data: Data(event.json.utf8),
                               metadata: EventMetadata(commandId: "c\(index)", correlationId: nil, causationId: nil, userId: "u1",
                                                       recordedAt: 1_700_000_000_000 + Int64(index)))
            _ = try h.log.append([StreamAppend(streamId: "cart-u1", expectedVersion: Int64(index), events: [new])])
        }
    }
}
