import Foundation
import PantryJSON

/// The batch frame on the core's command socket (`schemas/zeromq.md`, `bus/command-batch.schema.json`):
/// a JSON array of command documents, answered by one frame holding a JSON array of their outcome
/// documents in the same order (`bus/outcome-batch.schema.json`). A frame whose first byte past
/// whitespace is `[` is a batch; any other frame is one command, as before.
///
/// Why: a command that crossed alone cost the API and the core a ZeroMQ message each way, and a
/// command only sent to the core and refused there already ran at about a third of the bare route
/// (docs/benchmarks/http.md, issue 16). The API sends every command waiting at that moment as one
/// frame, so the crossing is paid once per batch.
package enum CommandBatch {
    /// The most commands one batch frame may hold: the core's own largest group commit.
    package static let maxCommands = 4096

    /// The most bytes a sender puts in one batch frame: a quarter of the core's 16 MiB message
    /// limit, past which libzmq disconnects the sender instead of answering (4,096 commands of up
    /// to 64 KiB each would be 256 MiB).
    package static let maxFrameBytes = 4 << 20

    /// `documents` cut, in order, into runs that each fit one batch frame: at most `maxCommands`
    /// documents and `maxFrameBytes` bytes (a document larger than that goes in a run alone).
    package static func runs(of documents: [Data]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        var bytes = 2
        for (index, document) in documents.enumerated() {
            if index > start && (index - start == maxCommands || bytes + 1 + document.count > maxFrameBytes) {
                runs.append(start..<index)
                start = index
                bytes = 2
            }
            bytes += 1 + document.count
        }
        if start < documents.count { runs.append(start..<documents.count) }
        return runs
    }

    /// Whether `frame` is a batch: a JSON array rather than one command document.
    package static func isBatch(_ frame: Data) -> Bool {
        for byte in frame {
            switch byte {
            case 0x20, 0x0A, 0x0D, 0x09: continue
            case UInt8(ascii: "["): return true
            default: return false
            }
        }
        return false
    }

    /// One frame holding `documents` (each a JSON document) as an array, in order.
    package static func join(_ documents: [Data]) -> Data {
        var frame = Data(capacity: documents.reduce(2 + documents.count) { $0 + $1.count })
        frame.append(UInt8(ascii: "["))
        for (index, document) in documents.enumerated() {
            if index > 0 { frame.append(UInt8(ascii: ",")) }
            frame.append(document)
        }
        frame.append(UInt8(ascii: "]"))
        return frame
    }

    /// The documents of a batch frame, in order; `JSONReadError.malformed` when it is not one JSON
    /// array. Each element is validated as JSON here, and read as a command or an outcome by the caller.
    package static func split(_ frame: Data) throws -> [Data] {
        try frame.withUnsafeBytes { bytes in
            try JSONArrayReader.elements(bytes).map { Data(bytes[$0]) }
        }
    }
}
