import PantryDomain
import PantryEventStore
import PantryRandom
import Testing
@testable import PantryProjections

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
            #expect(top.count > 10 && top.count == standings.count, "seed \(seed)")
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

    @Test func pointsForAUserNeverRegisteredCountUnderTheirIdAndADeletionRemovesThem() {
        var standings = LeaderboardStandings()
        standings.apply(.userRegistered(UserRegistered(userId: "u1", username: "anna", email: "a@example.org", passwordHash: "h")), at: 1)
        standings.apply(.pointEarned(PointEarned(userId: "ghost", recipeId: "r", ingredient: "egg")), at: 2)
        standings.apply(.pointEarned(PointEarned(userId: "u1", recipeId: "r", ingredient: "egg")), at: 3)
        #expect(standings.top(10) == [LeaderboardEntry(rank: 1, userId: "ghost", username: "ghost", points: 1),
                                      LeaderboardEntry(rank: 2, userId: "u1", username: "anna", points: 1)])
        // An erased registration (its key destroyed) shows the placeholder until the deletion.
        standings.apply(.userRegistered(UserRegistered(userId: "u1", account: nil)), at: 4)
        #expect(standings.entry("u1") == LeaderboardEntry(rank: 2, userId: "u1", username: "deleted user", points: 1))
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
