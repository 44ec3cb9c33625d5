/// The name digests taken (`PantryState.usernames`, `.emails`): those a snapshot restored as one
/// sorted array searched by halves, and the changes since beside it. Hashing a million accounts'
/// two digests into dictionaries was a fifth of the core's start from its snapshot.
package struct NameIndex: Sendable, Equatable {
    /// Ascending, no two equal.
    private var restored: [NameDigest] = []
    /// Of `restored`, those freed since (their account deleted).
    private var freed: Set<NameDigest> = []
    /// Taken since the restore.
    private var added: Set<NameDigest> = []

    package init() {}

    /// Nil unless `sorted` is ascending with no two equal (a search by halves needs it).
    package init?(sorted: [NameDigest]) {
        for index in sorted.indices.dropFirst() where !(sorted[index - 1] < sorted[index]) { return nil }
        restored = sorted
    }

    /// The index of `digests` (a fold's or a test's: a snapshot's are stored sorted).
    package init(_ digests: some Sequence<NameDigest>) {
        restored = Array(Set(digests)).sorted()
    }

    package func contains(_ digest: NameDigest) -> Bool {
        added.contains(digest) || (isRestored(digest) && !freed.contains(digest))
    }

    package mutating func insert(_ digest: NameDigest) {
        added.insert(digest)
    }

    package mutating func remove(_ digest: NameDigest) {
        added.remove(digest)
        if isRestored(digest) { freed.insert(digest) }
    }

    /// Every digest taken, ascending: what a snapshot stores.
    package var sorted: [NameDigest] {
        var all = freed.isEmpty ? restored : restored.filter { !freed.contains($0) }
        all.append(contentsOf: added.filter { !isRestored($0) || freed.contains($0) })
        return added.isEmpty ? all : all.sorted()
    }

    package static func == (a: NameIndex, b: NameIndex) -> Bool { a.sorted == b.sorted }

    private func isRestored(_ digest: NameDigest) -> Bool {
        var low = 0, high = restored.count
        while low < high {
            let middle = (low + high) / 2
            if restored[middle] < digest { low = middle + 1 } else { high = middle }
        }
        return low < restored.count && restored[low] == digest
    }
}

extension NameDigest: Comparable {
    package static func < (a: NameDigest, b: NameDigest) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}
