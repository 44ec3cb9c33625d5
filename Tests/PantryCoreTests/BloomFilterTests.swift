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

    @Test func theSizeIsKnownBeforeTheFilterIsMade() {
        for capacity in [0, 1, 15, 16, 17, 1_000, 1 << 20] {
            #expect(BloomFilter.bytes(capacity: capacity) == BloomFilter(capacity: capacity).bytes)
        }
        #expect(BloomFilter(capacity: 1 << 20).bytes == 2 << 20)
    }
}
