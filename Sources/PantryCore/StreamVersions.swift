import PantryDomain

/// Each stream's version (its number of events): the ones a snapshot stored, read in place
/// (`StoredKeys`, then their versions as little-endian `Int64`s, read in one pass), and those
/// changed since.
struct StreamVersions {
    private var stored = StoredKeys()
    private var storedVersions: [Int64] = []
    private var changed: [String: Int64] = [:]

    init() {}

    init(reading r: inout SnapshotReader) throws {
        stored = try StoredKeys(reading: &r)
        let count = try r.int(), start = r.offset
        guard count == stored.count else { throw SnapshotFailure.notASnapshot }
        guard stored.count <= (r.bytes.count - start) / 8 else { throw SnapshotFailure.truncated }
        storedVersions = r.bytes.withUnsafeBytes { raw in
            (0..<stored.count).map { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: start + $0 * 8, as: Int64.self)) }
        }
        r.offset = start + stored.count * 8
    }

    func version(of stream: String) -> Int64? {
        if let version = changed[stream] { return version }
        return stored.index(of: stream).map { storedVersions[$0] }
    }

    mutating func record(_ version: Int64, of stream: String) {
        changed[stream] = version
    }

    /// As `init(reading:)` reads them: the stored ones merged with the changed ones, ascending.
    func write(into w: inout SnapshotWriter) {
        let fresh = changed.keys.sorted(by: StoredKeys.ascending)
        var keys = StoredRuns.Writer(), versions: [Int64] = []
        func append(_ key: some Collection<UInt8>, _ version: Int64) {
            keys.append(key)
            versions.append(version)
        }
        stored.merge(0..<stored.count, with: fresh,
                     stored: { append(stored.bytes(at: $0), storedVersions[$0]) },
                     added: { append($0.utf8, changed[$0]!) })
        keys.write(into: &w)
        w.int(Int64(versions.count))
        for version in versions { w.int(version) }
    }
}
