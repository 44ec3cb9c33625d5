import Foundation
@testable import PantryCore
import Testing

@Suite struct BloomFilterTests {
    /// SplitMix64: the same keys every run.
    struct Keys {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    @Test func everyKeyInsertedIsFoundAndFewOthersAre() {
        var keys = Keys(state: 1)
        var filter = BloomFilter(capacity: 200_000)
        let inserted = (0..<200_000).map { _ in keys.next() }
        for key in inserted { filter.insert(key) }
        #expect(filter.isFull)
        #expect(inserted.allSatisfy(filter.mayContain))
        // Full, at 16 bits a key: about 0.1-0.2% of other keys are taken for inserted ones.
        let others = 1_000_000
        let falsePositives = (0..<others).count { _ in filter.mayContain(keys.next()) }
        #expect(falsePositives > 0)
        #expect(Double(falsePositives) / Double(others) < 0.005)
        #expect(filter.bytes == 200_000 * BloomFilter.bitsPerKey / 8)
    }

    @Test func anEmptyFilterHoldsNothing() {
        var keys = Keys(state: 2)
        let filter = BloomFilter(capacity: 1_000)
        #expect((0..<10_000).allSatisfy { _ in !filter.mayContain(keys.next()) })
    }

    @Test func aJoinedFilterHoldsTheKeysOfBoth() {
        var keys = Keys(state: 3)
        var left = BloomFilter(capacity: 10_000)
        var right = BloomFilter(capacity: 10_000)
        let leftKeys = (0..<5_000).map { _ in keys.next() }
        let rightKeys = (0..<5_000).map { _ in keys.next() }
        for key in leftKeys { left.insert(key) }
        for key in rightKeys { right.insert(key) }
        #expect(!rightKeys.allSatisfy(left.mayContain))
        left.formUnion(right)
        #expect((leftKeys + rightKeys).allSatisfy(left.mayContain))
        #expect(left.count == 10_000)
    }
}
