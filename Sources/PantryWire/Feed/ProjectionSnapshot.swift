import Foundation
import PantryJSON

/// A consistent copy of a worker's projection file at a log position, as a worker leaves it beside
/// the core's log service (`<snapshots>/<projection>.json` naming `<projection>-<position>.sqlite`)
/// and as the service describes it in every chunk it sends (`bus/snapshot-answer.schema.json`).
package struct SnapshotManifest: Equatable, Sendable {
    package var projection: WorkerName
    /// The projection's table layout (`Projection.layoutVersion`): a copy of another layout is refused.
    package var layout: Int
    /// The copy's checkpoint: every event up to it is applied in the copy, none after it.
    package var position: Int64
    package var size: Int64
    /// SHA-256 of the whole file, lowercase hex.
    package var sha256: String

    package init(projection: WorkerName, layout: Int, position: Int64, size: Int64, sha256: String) {
        self.projection = projection; self.layout = layout; self.position = position; self.size = size; self.sha256 = sha256
    }

    /// The copy's file name in the snapshots directory: chosen here, never read from a request or a manifest.
    package var fileName: String { "\(projection.rawValue)-\(position).sqlite" }

    package static func manifestName(_ projection: WorkerName) -> String { "\(projection.rawValue).json" }

    package var json: Data {
        var w = written()
        return Data(w.finish())
    }

    func written() -> JSONObjectWriter {
        var w = JSONObjectWriter()
        w.field("projection", projection.rawValue); w.field("layout", layout); w.field("position", position)
        w.field("size", size); w.field("sha256", sha256)
        return w
    }

    package init(json: Data) throws {
        self = try json.withUnsafeBytes { bytes in try JSONObjectReader.read(bytes) { try Self(reading: $0) } }
    }

    init(reading json: borrowing JSONObjectReader) throws {
        let name = try json.string("projection")
        guard let projection = WorkerName(rawValue: name) else { throw LogRead.Invalid(description: "unknown projection '\(name.prefix(32))'") }
        let sha256 = try json.string("sha256")
        guard sha256.count == 64, sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw LogRead.Invalid(description: "sha256 is not 64 lowercase hex digits")
        }
        self.init(projection: projection, layout: try json.int("layout"), position: try json.int64("position"),
                  size: try json.int64("size"), sha256: sha256)
        guard layout >= 1, position >= 0, size >= 0 else { throw LogRead.Invalid(description: "layout, position or size out of range") }
    }
}

/// The header frame of a snapshot chunk (`bus/snapshot-answer.schema.json`): the manifest of the copy
/// being sent, then where this chunk starts and how many bytes the next frame holds.
package struct SnapshotChunk: Equatable, Sendable {
    package var manifest: SnapshotManifest
    package var offset: Int64
    package var bytes: Int

    package init(manifest: SnapshotManifest, offset: Int64, bytes: Int) {
        self.manifest = manifest; self.offset = offset; self.bytes = bytes
    }

    package var json: Data {
        var w = manifest.written()
        w.field("offset", offset); w.field("bytes", bytes)
        return Data(w.finish())
    }

    /// Why the service sent no chunk.
    package struct Refused: Error, CustomStringConvertible {
        package var code: String
        package var message: String
        package var description: String { "\(code): \(message)" }
    }

    /// A chunk's header, or the refusal the service sent instead.
    package static func decode(_ frame: Data) throws -> SnapshotChunk {
        try frame.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                if let error = try json.optionalObject("error") {
                    throw try JSONObjectReader.read(error) { Refused(code: try $0.string("code"), message: try $0.string("message")) }
                }
                let chunk = SnapshotChunk(manifest: try SnapshotManifest(reading: json), offset: try json.int64("offset"),
                                          bytes: try json.int("bytes"))
                guard chunk.offset >= 0, chunk.bytes >= 0, chunk.offset + Int64(chunk.bytes) <= chunk.manifest.size else {
                    throw LogRead.Invalid(description: "the chunk lies outside the snapshot")
                }
                return chunk
            }
        }
    }
}
