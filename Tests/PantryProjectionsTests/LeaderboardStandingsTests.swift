import PantryDomain
import PantryEventStore
import PantryRandom
import Testing
@testable import PantryProjections
@testable import PantryStandings

/// The in-memory standings the API keeps must answer exactly as the leaderboard's file does.
struct LeaderboardStandingsTests {
    @Test func randomHistoriesGiveTheSameAnswersAsTheProjectionsFile() throws {
        for seed: UInt64 in [7, 21] {
            let h = try randomHistory(seed: seed, commands: 1_500)
            let store = try h.caughtUp(LeaderboardProjection())
            var standings = LeaderboardStandings()
            var userIds: Set<String> = ["nobody"]
            for recorded in try h.events() {
                let event = try EventCoding.decode(type: recorded.type, schemaVersion: recorded.schemaVersion,
                                                   data: recorded.data, vault: h.keys)
                standings.apply(event, at: recorded.position)
                userIds.insert(event.userId)
            }
            let top = try store.read { try LeaderboardProjection.top(1_000, in: $0) }
            #expect(top.count > 10 && top.allSatisfy { $0.points > 0 }, "seed \(seed)")
            #expect(standings.top(1_000) == top, "seed \(seed)")
            #expect(standings.top(5) == Array(top.prefix(5)))
            for userId in userIds.sorted() {
                #expect(standings.entry(userId) == (try store.read { try LeaderboardProjection.entry(userId, in: $0) }))
                for radius in [0, 3, 25] {
                    #expect(standings.around(userId, radius: radius)
                        == (try store.read { try LeaderboardProjection.around(userId, radius: radius, in: $0) }))
                }
            }
        }
    }

    @Test("Standings folded in batches of any size answer exactly as standings folded one event at a time")
    func batchesAnswerAsOneByOne() throws {
        for seed: UInt64 in [5, 33] {
            let h = try randomHistory(seed: seed, commands: 1_500)
            var one = LeaderboardStandings()
            var batched = LeaderboardStandings()
            var rng = SeededGenerator(seed: seed)
            var events: [(event: Event, position: Int64)] = []
            var userIds: Set<String> = []
            for recorded in try h.events() {
                let event = try EventCoding.decode(type: recorded.type, schemaVersion: recorded.schemaVersion,
                                                   data: recorded.data, vault: h.keys)
                one.apply(event, at: recorded.position)
                events.append((event, recorded.position))
                userIds.insert(event.userId)
            }
            var start = 0
            while start < events.count {
                let end = min(events.count, start + Int.random(in: 1...400, using: &rng))
                batched.apply(Array(events[start..<end]))
                start = end
            }
            #expect(batched.count == one.count && batched.top(.max / 2) == one.top(.max / 2), "seed \(seed)")
            for userId in userIds { #expect(batched.around(userId, radius: 3) == one.around(userId, radius: 3)) }
            for userId in userIds { #expect(batched.entry(userId) == one.entry(userId), "seed \(seed) user \(userId)") }
        }
    }

    @Test("A leaderboard rebuilt with every user's points held across batches has the checksum of one applied batch by batch")
    func rebuildFoldMatchesBatchByBatch() throws {
        let h = try randomHistory(seed: 11, commands: 1_500)
        let live = try h.caughtUp(LeaderboardProjection())
        for batchSize in [7, 100, 100_000] {
            let report = try Replayer.rebuild(LeaderboardProjection(), directory: h.directory.appendingPathComponent("rebuilt-\(batchSize)"),
                                              from: h.log, keys: h.keys, batchSize: batchSize)
            #expect(report.checksum == (try live.checksum()), "batch size \(batchSize)")
        }
    }

    @Test("In one batch, a ghost's points before its registration, and points before a deletion, land as one by one")
    func batchKeepsEachUsersOrder() {
        let events: [(event: Event, position: Int64)] = [
            (.pointEarned(PointEarned(userId: "u2", recipeId: "r", ingredient: "egg")), 1),
            (.userRegistered(UserRegistered(userId: "u2", username: "bea", email: "b@example.org", passwordHash: "h")), 2),
            (.pointEarned(PointEarned(userId: "u2", recipeId: "r", ingredient: "ham")), 3),
            (.userRegistered(UserRegistered(userId: "u1", username: "anna", email: "a@example.org", passwordHash: "h")), 4),
            (.pointEarned(PointEarned(userId: "u1", recipeId: "r", ingredient: "egg")), 5),
            (.pointEarned(PointEarned(userId: "u1", recipeId: "r", ingredient: "ham")), 6),
            (.userRegistered(UserRegistered(userId: "u3", username: "cas", email: "c@example.org", passwordHash: "h")), 7),
            (.pointEarned(PointEarned(userId: "u3", recipeId: "r", ingredient: "egg")), 8),
            (.userDeleted(UserDeleted(userId: "u3")), 9),
            (.pointEarned(PointEarned(userId: "u3", recipeId: "r", ingredient: "ham")), 10),
        ]
        var one = LeaderboardStandings()
        for (event, position) in events { one.apply(event, at: position) }
        var batched = LeaderboardStandings()
        batched.apply(events)
        #expect(batched.top(10) == one.top(10))
        #expect(batched.top(10) == [LeaderboardEntry(rank: 1, userId: "u2", username: "bea", points: 2),
                                    LeaderboardEntry(rank: 1, userId: "u1", username: "anna", points: 2),
                                    LeaderboardEntry(rank: 3, userId: "u3", username: "u3", points: 1)])
    }

    @Test func pointsForAUserNeverRegisteredCountUnderTheirIdAndADeletionRemovesThem() {
        var standings = LeaderboardStandings()
        standings.apply(.userRegistered(UserRegistered(userId: "u1", username: "anna", email: "a@example.org", passwordHash: "h")), at: 1)
        standings.apply(.pointEarned(PointEarned(userId: "ghost", recipeId: "r", ingredient: "egg")), at: 2)
        standings.apply(.pointEarned(PointEarned(userId: "u1", recipeId: "r", ingredient: "egg")), at: 3)
        #expect(standings.top(10) == [LeaderboardEntry(rank: 1, userId: "ghost", username: "ghost", points: 1),
                                      LeaderboardEntry(rank: 1, userId: "u1", username: "anna", points: 1)])
        // An erased registration (its key destroyed) shows the placeholder until the deletion.
        standings.apply(.userRegistered(UserRegistered(userId: "u1", account: nil)), at: 4)
        #expect(standings.entry("u1") == LeaderboardEntry(rank: 1, userId: "u1", username: "deleted user", points: 1))
        standings.apply(.userDeleted(UserDeleted(userId: "u1")), at: 5)
        #expect(standings.entry("u1") == nil && standings.around("u1", radius: 3).isEmpty && standings.count == 1)
    }

    /// Thousands of places, so that blocks split and empty, against one sorted array.
    @Test func rankedBlocksAgreeWithASortedArray() {
        var rng = SeededGenerator(seed: 3)
        var blocks = RankedBlocks<Int>()
        var oracle: [Int] = []
        for step in 0..<20_000 {
            if oracle.isEmpty || Int.random(in: 0..<10, using: &rng) < 6 {
                let value = Int.random(in: 0..<1_000_000, using: &rng)
                guard !oracle.contains(value) else { continue }
                blocks.insert(value)
                oracle.insert(value, at: oracle.firstIndex { $0 > value } ?? oracle.count)
            } else {
                let value = oracle.remove(at: Int.random(in: 0..<oracle.count, using: &rng))
                let removed = blocks.remove(value)
                #expect(removed)
            }
            if step % 997 == 0 {
                #expect(blocks.count == oracle.count)
                #expect(blocks.elements(from: 0, limit: .max) == oracle)
                for (rank, value) in oracle.enumerated() where rank % 37 == 0 { #expect(blocks.rank(of: value) == rank) }
                let offset = Int.random(in: 0...oracle.count, using: &rng)
                #expect(blocks.elements(from: offset, limit: 25) == Array(oracle[offset..<min(oracle.count, offset + 25)]))
            }
        }
        #expect(oracle.count > 2 * RankedBlocks<Int>.maxBlockSize, "enough to split blocks")
        let removedAbsent = blocks.remove(-1)
        #expect(!removedAbsent && blocks.rank(of: -1) == nil)
    }
}
