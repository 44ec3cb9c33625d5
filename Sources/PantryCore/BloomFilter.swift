/// A split-block Bloom filter of 64-bit hashes (the layout Apache Parquet uses): each key sets
/// one bit in each of the 8 words of one 32-byte block, so a lookup touches one cache line.
/// `mayContain` is never false for an inserted key; at 16 bits per key and full, it is true for
/// about one other key in 800 (1,301 of 1,000,000 other command ids in a run of `BloomFilterTests`).
struct BloomFilter: Sendable {
    static let bitsPerKey = 16
    private static let wordsPerBlock = 8
    private static let salts: [UInt32] = [
        0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x7054_95c7, 0x2df1_424b, 0x9efc_4947, 0x5c6b_fb31,
    ]

    /// Keys it was sized for: past this many the false positives grow quickly.
    let capacity: Int
    private(set) var count = 0
    private var words: [UInt32]
    private let blocks: UInt64

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        let blocks = Self.blocks(capacity: self.capacity)
        self.blocks = UInt64(blocks)
        words = [UInt32](repeating: 0, count: blocks * Self.wordsPerBlock)
    }

    /// 32-byte blocks for `capacity` keys at `bitsPerKey`.
    private static func blocks(capacity: Int) -> Int { (max(capacity, 1) * bitsPerKey + 255) / 256 }

    /// What a filter for `capacity` keys takes, before making one.
    static func bytes(capacity: Int) -> Int { blocks(capacity: capacity) * wordsPerBlock * MemoryLayout<UInt32>.size }

    var bytes: Int { words.count * MemoryLayout<UInt32>.size }
    var isFull: Bool { count >= capacity }

    mutating func insert(_ hash: UInt64) {
        let first = block(hash)
        let low = UInt32(truncatingIfNeeded: hash)
        for word in 0..<Self.wordsPerBlock {
            words[first + word] |= Self.bit(low, word)
        }
        count += 1
    }

    func mayContain(_ hash: UInt64) -> Bool {
        let first = block(hash)
        let low = UInt32(truncatingIfNeeded: hash)
        for word in 0..<Self.wordsPerBlock where words[first + word] & Self.bit(low, word) == 0 {
            return false
        }
        return true
    }

    /// The upper half of the hash picks the block (multiply-shift, no division); the lower half
    /// the bits within it.
    private func block(_ hash: UInt64) -> Int {
        Int(((hash >> 32) &* blocks) >> 32) * Self.wordsPerBlock
    }

    private static func bit(_ low: UInt32, _ word: Int) -> UInt32 {
        1 << ((low &* salts[word]) >> 27)
    }
}
