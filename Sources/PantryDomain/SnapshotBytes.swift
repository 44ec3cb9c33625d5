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
package struct SnapshotWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func int(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            int(Int64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    package mutating func sequence<S: Collection>(_ values: S, _ element: (inout SnapshotWriter, S.Element) -> Void) {
        int(Int64(values.count))
        for value in values { element(&self, value) }
    }

    package mutating func map<K: LosslessStringConvertible, V>(_ values: [K: V], _ value: (inout SnapshotWriter, V) -> Void) {
        int(Int64(values.count))
        for (key, element) in values {
            string(key.description)
            value(&self, element)
        }
    }
}

package struct SnapshotReader {
    package let bytes: ArraySlice<UInt8>
    package var offset: Int

    package init(bytes: ArraySlice<UInt8>, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    package mutating func uint32() throws -> UInt32 {
        UInt32(littleEndian: try fixed(UInt32.self))
    }

    package mutating func int() throws -> Int64 {
        Int64(littleEndian: try fixed(Int64.self))
    }

    package mutating func string() throws -> String {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotFailure.truncated }
        let start = bytes.startIndex + offset
        offset += Int(count)
        return String(decoding: bytes[start..<(start + Int(count))], as: UTF8.self)
    }

    package mutating func array<T>(_ element: (inout SnapshotReader) throws -> T) throws -> [T] {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotFailure.truncated }
        var values: [T] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count { values.append(try element(&self)) }
        return values
    }

    package mutating func map<K: LosslessStringConvertible, V>(_ value: (inout SnapshotReader) throws -> V) throws -> [K: V] {
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

    private mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { throw SnapshotFailure.truncated }
        var value: T = 0
        let start = bytes.startIndex + offset
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[start..<(start + size)]) }
        offset += size
        return value
    }
}
