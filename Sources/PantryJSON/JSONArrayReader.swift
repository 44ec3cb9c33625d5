/// Finds where each element of one JSON array lies, validating the whole array as
/// `JSONObjectReader` validates an object, so that each element can be read on its own (the core
/// reads each command of a batch frame with `CommandCoding`, the API each outcome of its answer).
package enum JSONArrayReader {
    /// The byte ranges of the array's elements, in order. `bytes` holds the array, optionally
    /// surrounded by whitespace; anything else is `JSONReadError.malformed`.
    package static func elements(_ bytes: UnsafeRawBufferPointer) throws -> [Range<Int>] {
        var scanner = JSONObjectReader.Scanner(bytes: bytes)
        scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: "["), "an array")
        var elements: [Range<Int>] = []
        scanner.skipWhitespace()
        if !scanner.consume(UInt8(ascii: "]")) {
            repeat {
                scanner.skipWhitespace()
                let start = scanner.index
                _ = try scanner.value(depth: 2)
                elements.append(start..<scanner.index)
                scanner.skipWhitespace()
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"), "',' or ']'")
        }
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw JSONReadError.malformed("unexpected bytes after the array", at: scanner.index) }
        return elements
    }
}
