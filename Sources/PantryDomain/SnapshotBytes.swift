/// Why a snapshot (the core's, the API's) cannot be used. Whoever reads one falls back to folding
/// the log, which is the truth.
package enum SnapshotFailure: Error, Equatable, CustomStringConvertible {
    case notASnapshot
    case otherVersion(format: UInt32, holdings: UInt32)
    case checksumMismatch
    case truncated

    package var description: String {
        switch self {
        case .notASnapshot: "not a snapshot of this kind"
        case .otherVersion(let format, let holdings): "written by another version (format \(format), state \(holdings))"
        case .checksumMismatch: "its checksum does not match: the file is damaged"
        case .truncated: "the file ends early"
        }
    }
}

/// Little-endian integers and length-prefixed UTF-8, for the processes' snapshots: a snapshot of a
/// million entries is read in a fraction of the time its JSON would take. Pure bytes, no I/O.
/// `@inlinable`, as the reader: the other modules' calls are specialised for their element types
/// (unspecialised, a million users' dictionaries spent an eighth of a start asking for generic
/// metadata).
package struct SnapshotWriter {
    package var bytes: [UInt8] = []

    @inlinable package init() {}

    @inlinable package mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    @inlinable package mutating func int(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    @inlinable package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            int(Int64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    @inlinable package mutating func sequence<S: Collection>(_ values: S, _ element: (inout SnapshotWriter, S.Element) -> Void) {
        int(Int64(values.count))
        for value in values { element(&self, value) }
    }

    @inlinable package mutating func map<K: LosslessStringConvertible, V>(_ values: [K: V], _ value: (inout SnapshotWriter, V) -> Void) {
        int(Int64(values.count))
        for (key, element) in values {
            string(key.description)
            value(&self, element)
        }
    }
}

package struct SnapshotReader {
    package let bytes: ArraySlice<UInt8>
    /// From `bytes.startIndex`.
    package var offset: Int

    @inlinable package init(bytes: ArraySlice<UInt8>, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    @inlinable package mutating func uint32() throws -> UInt32 {
        UInt32(littleEndian: try fixed(UInt32.self))
    }

    @inlinable package mutating func int() throws -> Int64 {
        Int64(littleEndian: try fixed(Int64.self))
    }

    @inlinable package mutating func string() throws -> String {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotFailure.truncated }
        let start = offset
        offset += Int(count)
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<(start + Int(count))]), as: UTF8.self) }
    }

    @inlinable package mutating func array<T>(_ element: (inout SnapshotReader) throws -> T) throws -> [T] {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotFailure.truncated }
        var values: [T] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count { values.append(try element(&self)) }
        return values
    }

    @inlinable package mutating func map<K: LosslessStringConvertible, V>(_ value: (inout SnapshotReader) throws -> V) throws -> [K: V] {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotFailure.truncated }
        var values: [K: V] = [:]
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let key = K(try string()) else { throw SnapshotFailure.notASnapshot }
            values[key] = try value(&self)
        }
        return values
    }

    @inlinable mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { throw SnapshotFailure.truncated }
        let start = offset
        offset += size
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: T.self) }
    }
}
