import Glibc
import PantryDomain

/// Runs of bytes a snapshot stored one after the other, with their offsets: `count`, then
/// `count + 1` little-endian `Int64` offsets (the first 0), then the bytes. Read where they lie in
/// the file's bytes: a start copies none of them and builds nothing from them.
struct StoredRuns {
    private let file: ArraySlice<UInt8>
    /// From `file.startIndex`, where the offsets and the runs' bytes begin.
    private let offsetsAt: Int, bytesAt: Int
    let count: Int

    init() {
        file = []
        offsetsAt = 0; bytesAt = 0; count = 0
    }

    /// What `StoredRuns.Writer` wrote, checked: offsets from 0, in order, within the bytes.
    init(reading r: inout SnapshotReader) throws {
        let count = try r.int()
        let left = r.bytes.count - r.offset
        guard count >= 0, count < left / 8 else { throw SnapshotFailure.truncated }
        file = r.bytes
        self.count = Int(count)
        offsetsAt = r.offset
        bytesAt = offsetsAt + (self.count + 1) * 8
        let (ordered, total) = file.withUnsafeBytes { raw in
            var previous = 0
            for index in 0...Int(count) {
                let next = Int(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offsetsAt + index * 8, as: Int64.self)))
                guard index == 0 ? next == 0 : next >= previous else { return (false, 0) }
                previous = next
            }
            return (true, previous)
        }
        guard ordered else { throw SnapshotFailure.notASnapshot }
        guard total <= file.count - bytesAt else { throw SnapshotFailure.truncated }
        r.offset = bytesAt + total
    }

    /// From `file.startIndex`: where run `index` begins and ends.
    private func bounds(_ index: Int, in raw: UnsafeRawBufferPointer) -> Range<Int> {
        let start = raw.loadUnaligned(fromByteOffset: offsetsAt + index * 8, as: Int64.self)
        let end = raw.loadUnaligned(fromByteOffset: offsetsAt + index * 8 + 8, as: Int64.self)
        return (bytesAt + Int(Int64(littleEndian: start)))..<(bytesAt + Int(Int64(littleEndian: end)))
    }

    /// Run `index`: a slice of the file, not a copy.
    subscript(index: Int) -> ArraySlice<UInt8> {
        let range = file.withUnsafeBytes { bounds(index, in: $0) }
        return file[(file.startIndex + range.lowerBound)..<(file.startIndex + range.upperBound)]
    }

    /// Run `index` against `other`, as `memcmp` orders them, shorter first on a tie.
    func compare(_ index: Int, with other: UnsafeRawBufferPointer) -> Int32 {
        file.withUnsafeBytes { raw in Self.compare(UnsafeRawBufferPointer(rebasing: raw[bounds(index, in: raw)]), other) }
    }

    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int32 {
        let common = min(a.count, b.count)
        if common > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, common)
            if order != 0 { return order }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Writes runs as `StoredRuns` reads them.
    struct Writer {
        private var offsets: [Int64] = [0]
        private var bytes: [UInt8] = []

        init() {}

        mutating func append(_ run: some Collection<UInt8>) {
            bytes.append(contentsOf: run)
            offsets.append(Int64(bytes.count))
        }

        func write(into w: inout SnapshotWriter) {
            w.int(Int64(offsets.count - 1))
            w.bytes.reserveCapacity(w.bytes.count + offsets.count * 8 + bytes.count)
            for offset in offsets { w.int(offset) }
            w.bytes.append(contentsOf: bytes)
        }
    }
}

/// Strings a snapshot stored as `StoredRuns` in ascending order of their UTF-8 bytes, found by
/// halves where they lie: a start makes no `String` of them and hashes none (a million users' ids
/// and streams hashed into dictionaries were most of the core's start from its snapshot).
struct StoredKeys {
    private let runs: StoredRuns
    var count: Int { runs.count }

    init() { runs = StoredRuns() }

    /// Checked ascending, no two equal: a search by halves in any other order would miss.
    init(reading r: inout SnapshotReader) throws {
        runs = try StoredRuns(reading: &r)
        for index in runs.indices.dropFirst() {
            let ascending = runs[index].withUnsafeBytes { runs.compare(index - 1, with: $0) < 0 }
            guard ascending else { throw SnapshotFailure.notASnapshot }
        }
    }

    func index(of key: String) -> Int? {
        var key = key
        return key.withUTF8 { wanted in
            let wanted = UnsafeRawBufferPointer(wanted)
            var low = 0, high = runs.count
            while low < high {
                let middle = (low + high) / 2
                if runs.compare(middle, with: wanted) < 0 { low = middle + 1 } else { high = middle }
            }
            return low < runs.count && runs.compare(low, with: wanted) == 0 ? low : nil
        }
    }

    func key(at index: Int) -> String { String(decoding: runs[index], as: UTF8.self) }

    /// Key `index`'s UTF-8 bytes: a slice of the file.
    func bytes(at index: Int) -> ArraySlice<UInt8> { runs[index] }

    /// Key `index` against `key`, as the keys are ordered.
    func compare(_ index: Int, with key: String) -> Int32 {
        var key = key
        return key.withUTF8 { runs.compare(index, with: UnsafeRawBufferPointer($0)) }
    }

    /// The keys at `indices` (ascending) and `fresh` (in `ascending` order) as one ascending
    /// sequence, for a snapshot's next write: `stored` is called with a key's index, `added` with
    /// a fresh key; a key that is in both is `added` only.
    func merge(_ indices: some Sequence<Int>, with fresh: [String], stored: (Int) -> Void, added: (String) -> Void) {
        var next = 0
        for index in indices {
            while next < fresh.count, compare(index, with: fresh[next]) > 0 {
                added(fresh[next])
                next += 1
            }
            if next < fresh.count, compare(index, with: fresh[next]) == 0 { continue }
            stored(index)
        }
        for key in fresh[next...] { added(key) }
    }

    /// The keys' order: `memcmp` of their UTF-8 bytes (not `String`'s, which is Unicode's).
    static func ascending(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in StoredRuns.compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) < 0 } }
    }
}

extension StoredRuns {
    var indices: Range<Int> { 0..<count }
}
