import Foundation
@testable import PantryCore
import Testing

@Suite struct BloomFilterTests {
    /// Keys as the core makes them: its hash of command ids.
    static func keys(_ prefix: String, _ count: Int) -> [UInt64] {
        (0..<count).map { AcceptedCommandFilter.hash("\(prefix)-\($0)") }
    }

    @Test func everyKeyInsertedIsFoundAndFewOthersAre() {
        var filter = BloomFilter(capacity: 200_000)
        let inserted = Self.keys("inserted", 200_000)
        for key in inserted { filter.insert(key) }
        #expect(filter.isFull)
        #expect(inserted.allSatisfy(filter.mayContain))
        // Full, at 16 bits a key: about 0.1-0.2% of other keys are taken for inserted ones.
        let others = 1_000_000
        let falsePositives = Self.keys("other", others).count(where: filter.mayContain)
        #expect(falsePositives > 0)
        #expect(Double(falsePositives) / Double(others) < 0.005)
        #expect(filter.bytes == 200_000 * BloomFilter.bitsPerKey / 8)
    }

    @Test func anEmptyFilterHoldsNothing() {
        let filter = BloomFilter(capacity: 1_000)
        #expect(!Self.keys("any", 10_000).contains(where: filter.mayContain))
    }

    @Test func theSizeIsKnownBeforeTheFilterIsMade() {
        for capacity in [0, 1, 15, 16, 17, 1_000, 1 << 20] {
            #expect(BloomFilter.bytes(capacity: capacity) == BloomFilter(capacity: capacity).bytes)
        }
        #expect(BloomFilter(capacity: 1 << 20).bytes == 2 << 20)
    }
}
