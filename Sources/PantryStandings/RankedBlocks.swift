/// A sorted collection that answers "what is the rank of this element" and "the elements from rank
/// r" while it changes. Elements live in sorted blocks of at most `maxBlockSize`: an insert or a
/// removal searches and shifts within one block, and a rank adds up the sizes of the blocks before
/// it. One sorted array would shift half of itself per change (a million users: megabytes per
/// point); a block's size sum stays under a microsecond at that size.
struct RankedBlocks<Element: Comparable> {
    static var maxBlockSize: Int { 512 }

    private var blocks: [[Element]] = []
    private(set) var count = 0

    init() {}

    /// The elements of `sorted` (in order, no two equal), in half-full blocks: room to grow before
    /// the first split.
    init(sorted: [Element]) {
        let size = Self.maxBlockSize / 2
        blocks = stride(from: 0, to: sorted.count, by: size).map { Array(sorted[$0..<min(sorted.count, $0 + size)]) }
        count = sorted.count
    }

    mutating func insert(_ element: Element) {
        guard !blocks.isEmpty else {
            blocks = [[element]]
            count = 1
            return
        }
        let b = block(for: element)
        blocks[b].insert(element, at: Self.firstIndex(notBelow: element, in: blocks[b]))
        count += 1
        if blocks[b].count > Self.maxBlockSize {
            let upper = Array(blocks[b][(Self.maxBlockSize / 2)...])
            blocks[b].removeSubrange((Self.maxBlockSize / 2)...)
            blocks.insert(upper, at: b + 1)
        }
    }

    /// False when `element` is not there.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard !blocks.isEmpty else { return false }
        let b = block(for: element)
        let i = Self.firstIndex(notBelow: element, in: blocks[b])
        guard i < blocks[b].count, blocks[b][i] == element else { return false }
        blocks[b].remove(at: i)
        count -= 1
        if blocks[b].isEmpty { blocks.remove(at: b) }
        return true
    }

    /// How many elements come before `element` (0 for the first); nil when it is not there.
    func rank(of element: Element) -> Int? {
        guard !blocks.isEmpty else { return nil }
        let b = block(for: element)
        let i = Self.firstIndex(notBelow: element, in: blocks[b])
        guard i < blocks[b].count, blocks[b][i] == element else { return nil }
        return blocks[..<b].reduce(i) { $0 + $1.count }
    }

    /// How many elements are below `element`, whether or not it is there.
    func count(below element: Element) -> Int {
        guard !blocks.isEmpty else { return 0 }
        let b = block(for: element)
        return blocks[..<b].reduce(Self.firstIndex(notBelow: element, in: blocks[b])) { $0 + $1.count }
    }

    /// Up to `limit` elements in order, the first being the one of rank `offset`.
    func elements(from offset: Int, limit: Int) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(max(0, min(limit, count - offset)))
        var skip = max(0, offset)
        for block in blocks {
            guard result.count < limit else { break }
            if skip >= block.count {
                skip -= block.count
                continue
            }
            result.append(contentsOf: block[skip..<min(block.count, skip + limit - result.count)])
            skip = 0
        }
        return result
    }

    /// The block `element` belongs in: the first whose last element is not below it, else the last.
    private func block(for element: Element) -> Int {
        var low = 0, high = blocks.count - 1
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle][blocks[middle].count - 1] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func firstIndex(notBelow element: Element, in block: [Element]) -> Int {
        var low = 0, high = block.count
        while low < high {
            let middle = (low + high) / 2
            if block[middle] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension RankedBlocks: Sendable where Element: Sendable {}
