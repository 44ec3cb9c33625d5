import Crypto
import Foundation
import GRDB

/// The canonical fingerprint of a projection's tables.
///
/// Each query must name its columns and end in an `ORDER BY` over a unique key, so the rows come out
/// in one order whatever order they were written in. Every value is written with a type tag and,
/// for text and blobs, a length prefix, so no two different states serialise to the same bytes.
/// Doubles are hashed by bit pattern: the sums they come from are added in log order, which is the
/// same for a live copy and a replay.
package enum ProjectionChecksum {
    package static func sha256(_ db: Database, queries: [String]) throws -> String {
        var hasher = SHA256()
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        func flushIfLarge() {
            if chunk.count >= 1 << 16 { hasher.update(data: chunk); chunk.removeAll(keepingCapacity: true) }
        }
        func appendInt(_ value: Int64) {
            let bits = UInt64(bitPattern: value)
            for shift in stride(from: 56, through: 0, by: -8) { chunk.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
        func appendBytes(_ bytes: some Collection<UInt8>) {
            appendInt(Int64(bytes.count))
            chunk.append(contentsOf: bytes)
        }
        for sql in queries {
            chunk.append(UInt8(ascii: "T"))
            appendBytes(Array(sql.utf8))
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                chunk.append(UInt8(ascii: "R"))
                for value in row.databaseValues {
                    switch value.storage {
                    case .null: chunk.append(UInt8(ascii: "N"))
                    case .int64(let v): chunk.append(UInt8(ascii: "I")); appendInt(v)
                    case .double(let v): chunk.append(UInt8(ascii: "D")); appendInt(Int64(bitPattern: v.bitPattern))
                    case .string(let v): chunk.append(UInt8(ascii: "S")); appendBytes(Array(v.utf8))
                    case .blob(let v): chunk.append(UInt8(ascii: "B")); appendBytes(v)
                    }
                }
                flushIfLarge()
            }
            chunk.append(UInt8(ascii: "E"))
        }
        hasher.update(data: chunk)
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
