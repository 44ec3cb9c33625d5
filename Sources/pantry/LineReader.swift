#if canImport(Glibc)
import Glibc
#endif

/// Reads newline-separated documents from a file descriptor as raw bytes (so invalid UTF-8 can be
/// reported rather than silently repaired) and hands back every line that is complete, which
/// batches piped input and still answers an interactive user line by line.
struct LineReader {
    enum Line: Equatable {
        case bytes([UInt8])
        /// Longer than the limit; its bytes were discarded up to the newline.
        case oversized
    }

    let descriptor: Int32
    let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false
    private var chunk = [UInt8](repeating: 0, count: 1 << 20)

    init(descriptor: Int32, maxLineBytes: Int) {
        self.descriptor = descriptor
        self.maxLineBytes = maxLineBytes
    }

    /// The complete lines available after one read; nil at end of input.
    mutating func nextLines() -> [Line]? {
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        guard count > 0 else {
            defer { pending = []; discarding = false }
            if discarding { return [.oversized] }
            return pending.isEmpty ? nil : [.bytes(pending)]
        }
        var lines: [Line] = []
        for byte in chunk[0..<count] {
            if byte == UInt8(ascii: "\n") {
                lines.append(discarding ? .oversized : .bytes(pending))
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if discarding {
                continue
            } else if pending.count == maxLineBytes {
                discarding = true
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return lines
    }
}
