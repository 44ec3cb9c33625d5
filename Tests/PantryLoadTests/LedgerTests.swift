import PantryLoad
import Testing

@Suite struct LedgerTests {
    let names = ["ann", "bob", "cat"]

    func ledger(_ points: [Int]) -> PointsLedger {
        var ledger = PointsLedger(users: points.count)
        for (user, count) in points.enumerated() {
            for _ in 0..<count { ledger.earn(user: user) }
        }
        return ledger
    }

    @Test func clientsLedgersMergeIntoTheTotals() {
        var merged = ledger([1, 0, 2])
        merged.merge(ledger([0, 3, 1]))
        #expect(merged.points == [1, 3, 3])
        #expect(merged.total == 7)
    }

    @Test func anExactLeaderboardPasses() {
        let check = ledger([2, 0, 5]).check(against: [2, 0, 5], usernames: names)
        #expect(check.passed)
        #expect(check.expectedTotal == 7 && check.actualTotal == 7)
        #expect(check.differences.isEmpty && check.mismatchedUsers == 0)
    }

    @Test func aLostADoubledAndAnUnreadPointFail() {
        let check = ledger([2, 1, 5]).check(against: [1, nil, 6], usernames: names)
        #expect(!check.passed)
        #expect(check.mismatchedUsers == 3 && check.unreadUsers == 1)
        #expect(check.actualTotal == 7 && check.expectedTotal == 8)
        #expect(check.differences == [
            .init(username: "ann", expected: 2, actual: 1),
            .init(username: "bob", expected: 1, actual: nil),
            .init(username: "cat", expected: 5, actual: 6),
        ])
    }

    @Test func onlyTheFirstDifferencesAreListed() {
        let many = ledger(Array(repeating: 1, count: 50))
        let check = many.check(against: Array(repeating: 0, count: 50), usernames: (0..<50).map { "u\($0)" }, limit: 3)
        #expect(check.mismatchedUsers == 50)
        #expect(check.differences.map(\.username) == ["u0", "u1", "u2"])
    }
}
