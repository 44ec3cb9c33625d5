import Foundation
import Crypto
import PantryDomain
import Synchronization
import Testing
@testable import PantryAPI
@testable import PantryHTTP

/// The live streams' fan-out, resume and limits, in process (the HTTP side: Tests/system/test_live.py).
struct LiveStreamsTests {
    static func streams(_ settings: LiveStreams.Settings = .init(), households: HouseholdDirectory = HouseholdDirectory()) -> LiveStreams {
        let accounts = AccountDirectory(revocations: RevocationList(), digester: LoginDigester(tokenKey: SymmetricKey(size: .bits256)),
                                        registrations: nil)
        let live = LiveStreams(settings: settings, leaderboard: LeaderboardReadModel(accounts: accounts), households: households,
                               logger: .init(label: "test"))
        live.start(at: 0)
        return live
    }

    /// As `APIFeed` applies a batch: the read models (here the households) first, then the streams.
    static func apply(_ events: [(Event, Int64)], through position: Int64, _ households: HouseholdDirectory, _ live: LiveStreams) {
        let batch = events.map { (event: $0.0, position: $0.1) }
        households.apply(batch.filter { HouseholdDirectory.householdTypes.contains($0.event.type) }, through: position)
        live.apply(batch, through: position)
    }

    static func added(_ userId: UserID, _ ingredient: String) -> Event {
        .groceryAdded(GroceryAdded(userId: userId, item: IngredientName.key(ingredient), ingredient: ingredient, amount: nil,
                                   unit: nil, recipeId: nil, merged: false))
    }

    /// Counts the connections a stream closed.
    final class Closes: Sendable {
        let count = Atomic<Int>(0)
    }

    static func open(_ live: LiveStreams, _ userId: UserID, token: String = "t1", after: Int64? = nil,
                     closed: Closes? = nil) throws -> LiveSubscription {
        let opening = try live.open(userId: userId, tokenId: token, expiresAt: .max, lastEventId: after) {
            closed?.count.add(1, ordering: .relaxed)
        }
        guard case .streaming(let stream) = opening else { Issue.record("expected a stream"); throw LiveStreams.Refusal.full }
        return stream
    }

    /// The positions of the changes among `messages`.
    static func positions(_ messages: [LiveMessage]) -> [Int64] {
        messages.compactMap { if case .change(let change) = $0 { change.position } else { nil } }
    }

    @Test("A change goes to its user's streams only, after a heartbeat that says where the stream starts")
    func fanOut() async throws {
        let live = Self.streams()
        let mine = try Self.open(live, "u1"), theirs = try Self.open(live, "u2")
        live.apply([(Self.added("u1", "eggs"), 1), (Self.added("u2", "milk"), 2), (Self.added("u1", "flour"), 3)], through: 3)
        let first = await mine.next()
        guard case .heartbeat(0) = first.first else { Issue.record("\(first)"); return }
        #expect(Self.positions(first) == [1, 3])
        #expect(Self.positions(await theirs.next()) == [2])
    }

    @Test("A household's changes reach every member's streams, say who made them, and a member who leaves gets none after")
    func householdFanOut() async throws {
        let households = HouseholdDirectory()
        let live = Self.streams(households: households)
        let alice = try Self.open(live, "u1"), bob = try Self.open(live, "u2", token: "t2"), carol = try Self.open(live, "u3", token: "t3")
        let shared = { (userId: UserID, name: String) -> Event in
            .groceryAdded(GroceryAdded(userId: userId, item: name, ingredient: name, amount: nil, unit: nil, recipeId: nil, merged: false,
                                       household: "h-1", itemId: "g-\(name)"))
        }
        // Members as they stand after each batch: here the creation is a batch of its own.
        Self.apply([(.householdCreated(HouseholdCreated(householdId: "h-1", userId: "u1")), 1)], through: 1, households, live)
        Self.apply([(.householdJoined(HouseholdJoined(householdId: "h-1", userId: "u2", inviteId: "i-1")), 2),
                    (shared("u1", "eggs"), 3), (Self.added("u3", "milk"), 4)], through: 4, households, live)
        #expect(Self.positions(await alice.next()) == [1, 2, 3])
        let bobs = await bob.next()
        #expect(Self.positions(bobs) == [2, 3])
        let eggs = try #require(bobs.compactMap { if case .change(let c) = $0, c.position == 3 { c } else { nil } }.first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(eggs.json)) as? [String: Any])
        #expect(json["userId"] as? String == "u1" && json["household"] as? String == "h-1")
        #expect(Self.positions(await carol.next()) == [4])
        // Bob leaves: his stream ends; Alice's next change reaches only her. A resume of his from
        // before he left still gets what was the household's while he was in it.
        Self.apply([(.householdLeft(HouseholdLeft(householdId: "h-1", userId: "u2", removedBy: nil, dissolved: false)), 5),
                    (shared("u1", "flour"), 6)], through: 6, households, live)
        let ending = await bob.next()
        #expect(Self.positions(ending) == [5])
        guard case .end(reason: "left-household") = ending.last else { Issue.record("\(ending)"); return }
        #expect(Self.positions(await alice.next()) == [5, 6])
        let resumed = try Self.open(live, "u2", token: "t2b", after: 1)
        #expect(Self.positions(await resumed.next()) == [2, 3, 5])
    }

    @Test("A resume inside the window gets exactly the user's changes after its Last-Event-ID, then a heartbeat at the head")
    func resumeFromTheWindow() async throws {
        let live = Self.streams()
        live.apply((1...6).map { (Self.added($0 % 2 == 0 ? "u1" : "u2", "item \($0)"), Int64($0)) }, through: 7)
        let resumed = try Self.open(live, "u1", after: 2)
        let messages = await resumed.next()
        #expect(Self.positions(messages) == [4, 6])
        guard case .heartbeat(7) = messages.last else { Issue.record("\(messages)"); return }
        // A client ahead of this process (it came from one further on) is never sent what it had.
        let ahead = try Self.open(live, "u1", after: 9)
        live.apply([(Self.added("u1", "late"), 8), (Self.added("u1", "later"), 10)], through: 10)
        #expect(Self.positions(await ahead.next()) == [10])
    }

    @Test("A resume before the window is read from the log once, with what came meanwhile after it, in order")
    func resumeFromTheLog() async throws {
        let live = Self.streams(.init(resumeWindow: 2))
        live.apply((1...5).map { (Self.added("u1", "item \($0)"), Int64($0)) }, through: 5)
        let opening = try live.open(userId: "u1", tokenId: "t", expiresAt: .max, lastEventId: 1) {}
        guard case .resuming(let stream, let after, let through) = opening else { Issue.record("\(opening)"); return }
        #expect(after == 1 && through == 3)
        // What the feed applies while the log is read waits behind the backlog.
        live.apply([(Self.added("u1", "item 6"), 6)], through: 6)
        let backlog = [2, 3].map { LiveChange(Self.added("u1", "item \($0)"), at: Int64($0))! }
        live.finishResume(stream, backlog: backlog)
        let messages = await stream.next()
        #expect(Self.positions(messages) == [2, 3, 4, 5, 6])
    }

    @Test("A resume too far back is told to reload, and goes on from the head")
    func resetWhenTooFarBack() async throws {
        let live = Self.streams(.init(resumeWindow: 1, maxBackfill: 2))
        live.apply((1...10).map { (Self.added("u1", "item \($0)"), Int64($0)) }, through: 10)
        let stream = try Self.open(live, "u1", after: 1)
        guard case .reset(10) = await stream.next().first else { Issue.record("expected a reset"); return }
    }

    @Test("A stream that falls behind is closed and forgotten, and the others still get every change")
    func slowStreamIsClosed() async throws {
        let closed = Closes()
        let live = Self.streams(.init(maxPendingBytes: 4096))
        let slow = try Self.open(live, "u1", closed: closed)
        let other = try Self.open(live, "u2", token: "t2")
        var events: [(event: Event, position: Int64)] = []
        for n in 1...200 { events.append((Self.added(n % 10 == 0 ? "u2" : "u1", "an ingredient with a long name \(n)"), Int64(n))) }
        live.apply(events, through: 200)
        #expect(closed.count.load(ordering: .relaxed) == 1 && slow.isEnded)
        #expect(await slow.next().isEmpty, "its queue was dropped: the client resumes from what it read")
        #expect(Self.positions(await other.next()) == Array(stride(from: 10, through: 200, by: 10)))
    }

    @Test("A logout ends that token's stream, a new password or a deletion every stream of the user")
    func revocationEndsStreams() async throws {
        let live = Self.streams()
        let phone = try Self.open(live, "u1", token: "phone"), laptop = try Self.open(live, "u1", token: "laptop")
        _ = await phone.next(); _ = await laptop.next()
        live.apply([(.sessionRevoked(SessionRevoked(userId: "u1", tokenId: "phone", expiresAt: 9_999_999_999)), 1)], through: 1)
        guard case .end("revoked") = await phone.next().last else { Issue.record("the phone's stream goes on"); return }
        #expect(!laptop.isEnded)
        live.apply([(.passwordChanged(PasswordChanged(userId: "u1", passwordHash: "new")), 2)], through: 2)
        guard case .end("revoked") = await laptop.next().last else { Issue.record("the laptop's stream goes on"); return }
    }

    @Test("A deleted person's changes leave the window: nothing they wrote stays in the API's memory")
    func deletionEmptiesTheWindow() async throws {
        let live = Self.streams()
        live.apply([(Self.added("u1", "insulin pens"), 1), (Self.added("u2", "bread"), 2)], through: 2)
        live.apply([(.userDeleted(UserDeleted(userId: "u1")), 3)], through: 3)
        #expect(live.windowedUsers == ["u2"])
    }

    @Test("A user's ninth stream closes their oldest; past the process's limit a stream is refused")
    func limits() throws {
        let live = Self.streams(.init(maxStreams: 9, maxStreamsPerUser: 8))
        let streams = try (1...9).map { try Self.open(live, "u1", token: "t\($0)") }
        #expect(streams[0].isEnded && !streams[1].isEnded)
        #expect(live.openStreams == 8)
        _ = try Self.open(live, "u2")
        #expect(throws: LiveStreams.Refusal.full) { try live.open(userId: "u3", tokenId: "t", expiresAt: .max, lastEventId: nil) {} }
    }
}
