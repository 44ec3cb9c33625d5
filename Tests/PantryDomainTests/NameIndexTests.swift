import PantryDomain
import Testing

@Suite struct NameIndexTests {
    private func digest(_ n: UInt64, high: UInt64 = 0) -> NameDigest { NameDigest(low: n, high: high) }

    @Test func onlyAStrictlyAscendingArrayIsTakenAsRestored() {
        #expect(NameIndex(sorted: [digest(1), digest(2), digest(0, high: 1)]) != nil)
        #expect(NameIndex(sorted: []) != nil)
        #expect(NameIndex(sorted: [digest(2), digest(1)]) == nil, "out of order: a search by halves would miss")
        #expect(NameIndex(sorted: [digest(1), digest(1)]) == nil, "twice")
        #expect(NameIndex(sorted: [digest(0, high: 1), digest(5)]) == nil, "the high half orders first")
    }

    @Test func restoredDigestsAreFreedTakenAgainAndListedSorted() throws {
        var index = try #require(NameIndex(sorted: (0..<100).map { digest($0 * 2) }))
        #expect(index.contains(digest(0)) && index.contains(digest(198)) && index.contains(digest(42)))
        #expect(!index.contains(digest(41)) && !index.contains(digest(200)))
        index.remove(digest(42))
        #expect(!index.contains(digest(42)))
        index.insert(digest(41))
        #expect(index.contains(digest(41)))
        index.insert(digest(42))
        #expect(index.contains(digest(42)), "freed, then taken again")
        index.remove(digest(42))
        index.remove(digest(0))
        #expect(!index.contains(digest(42)) && !index.contains(digest(0)))
        let expected = (1..<100).map { digest($0 * 2) }.filter { $0 != digest(42) } + [digest(41)]
        #expect(index.sorted == expected.sorted())
        #expect(index == NameIndex(expected), "equal by what they hold, however it was built")
        index.insert(digest(42))
        #expect(index.sorted.contains(digest(42)) && index.sorted == index.sorted.sorted())
    }
}
