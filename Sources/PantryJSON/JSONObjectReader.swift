/// Reads one JSON object and hands out its fields by name: the reading half of `JSONObjectWriter`.
///
/// Event payloads and feed documents are read millions of times during replay and catch-up, where
/// `JSONDecoder`'s fixed cost per document (its tree, its containers, its coding paths) outweighs
/// the parsing. This reader validates the whole document against RFC 8259 in one pass (every
/// string's UTF-8, every number's range, whether or not the field is read), keeps only where each
/// top-level value lies, and converts a value when it is asked for. Nested objects and arrays are
/// validated and handed out as their raw bytes.
///
/// Duplicate names are refused: nothing Pantry writes has them, and RFC 8259 leaves their meaning
/// open. They are found in linear time: a scan for the few fields of a real document, a set of
/// names past `namesScannedLinearly` (a 64 KiB command of 5,956 names took 77 ms with scans alone).
package struct JSONObjectReader: ~Copyable {
    private let bytes: UnsafeRawBufferPointer
    private var fields: [Field] = []
    private static let namesScannedLinearly = 16

    private struct Field {
        var name: Range<Int>
        var nameIsEscaped: Bool
        var value: Range<Int>
        var kind: Kind
    }

    enum Kind {
        /// A string of ASCII without escapes: its bytes are its value and cannot be invalid UTF-8.
        case asciiString
        case string
        case escapedString
        case number, bool, null, object, array
    }

    /// Reads the object in `bytes` (optionally surrounded by whitespace) and passes it to `body`.
    /// The reader must not outlive the call: it points into `bytes`.
    package static func read<T>(_ bytes: UnsafeRawBufferPointer, _ body: (borrowing JSONObjectReader) throws -> T) throws -> T {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        let reader = try JSONObjectReader(bytes: bytes, scanner: &scanner)
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw JSONReadError.malformed("unexpected bytes after the object", at: scanner.index) }
        return try body(reader)
    }

    private init(bytes: UnsafeRawBufferPointer, scanner: inout Scanner) throws {
        self.bytes = bytes
        fields.reserveCapacity(8)
        try scanner.expect(UInt8(ascii: "{"), "an object")
        scanner.skipWhitespace()
        if scanner.consume(UInt8(ascii: "}")) { return }
        var names: Set<[UInt8]> = []
        repeat {
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "\"") else { throw JSONReadError.malformed("expected a field name", at: scanner.index) }
            let (name, nameKind) = try scanner.string()
            let nameIsEscaped = nameKind == .escapedString
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: ":"), "':'")
            scanner.skipWhitespace()
            let start = scanner.index
            let kind = try scanner.value(depth: 1)
            let field = Field(name: name, nameIsEscaped: nameIsEscaped, value: start..<scanner.index, kind: kind)
            if fields.count < Self.namesScannedLinearly {
                if let other = fields.first(where: { Self.sameName($0, field, in: bytes) }) {
                    throw JSONReadError.duplicateField(Self.name(of: other, in: bytes))
                }
            } else {
                if names.isEmpty { names = Set(fields.map { Self.nameBytes(of: $0, in: bytes) }) }
                guard names.insert(Self.nameBytes(of: field, in: bytes)).inserted else {
                    throw JSONReadError.duplicateField(Self.name(of: field, in: bytes))
                }
            }
            fields.append(field)
            scanner.skipWhitespace()
        } while scanner.consume(UInt8(ascii: ","))
        try scanner.expect(UInt8(ascii: "}"), "',' or '}'")
    }

    // MARK: Fields

    /// The names of the fields, in document order.
    package var names: [String] { fields.map { Self.name(of: $0, in: bytes) } }

    package func contains(_ name: String) -> Bool { field(name) != nil }

    /// Whether the field is present with the value null.
    package func isNull(_ name: String) -> Bool { field(name)?.kind == .null }

    package func string(_ name: String) throws -> String {
        guard let value = try optionalString(name) else { throw missingOrNull(name, "a string") }
        return value
    }

    /// nil when the field is absent or null.
    package func optionalString(_ name: String) throws -> String? {
        guard let field = field(name), field.kind != .null else { return nil }
        switch field.kind {
        case .asciiString:
            return String(decoding: bytes[(field.value.lowerBound + 1)..<(field.value.upperBound - 1)], as: UTF8.self)
        case .string:
            let content = UnsafeRawBufferPointer(rebasing: bytes[(field.value.lowerBound + 1)..<(field.value.upperBound - 1)])
            return try Self.text(content.assumingMemoryBound(to: UInt8.self), name)
        case .escapedString:
            return try Self.unescape(bytes[(field.value.lowerBound + 1)..<(field.value.upperBound - 1)]).withUnsafeBufferPointer {
                try Self.text($0, name)
            }
        default: throw JSONReadError.wrongType(field: name, expected: "a string")
        }
    }

    package func int(_ name: String) throws -> Int {
        guard let value = try optionalInt(name) else { throw missingOrNull(name, "an integer") }
        return value
    }

    package func optionalInt(_ name: String) throws -> Int? {
        guard let field = field(name), field.kind != .null else { return nil }
        guard field.kind == .number, let value = Self.integer(bytes[field.value]) else {
            throw JSONReadError.wrongType(field: name, expected: "an integer")
        }
        return value
    }

    package func int64(_ name: String) throws -> Int64 { Int64(try int(name)) }

    package func optionalDouble(_ name: String) throws -> Double? {
        guard let field = field(name), field.kind != .null else { return nil }
        guard field.kind == .number, let value = Double(String(decoding: bytes[field.value], as: UTF8.self)), value.isFinite else {
            throw JSONReadError.wrongType(field: name, expected: "a number")
        }
        return value
    }

    package func bool(_ name: String) throws -> Bool {
        guard let value = try optionalBool(name) else { throw missingOrNull(name, "true or false") }
        return value
    }

    package func optionalBool(_ name: String) throws -> Bool? {
        guard let field = field(name), field.kind != .null else { return nil }
        guard field.kind == .bool else { throw JSONReadError.wrongType(field: name, expected: "true or false") }
        return bytes[field.value.lowerBound] == UInt8(ascii: "t")
    }

    /// An array of integers (log positions, say).
    package func optionalIntegers(_ name: String) throws -> [Int]? {
        guard let field = field(name), field.kind != .null else { return nil }
        let wrongType = JSONReadError.wrongType(field: name, expected: "an array of integers")
        guard field.kind == .array else { throw wrongType }
        var scanner = Scanner(bytes: UnsafeRawBufferPointer(rebasing: bytes[field.value]))
        scanner.index = 1
        scanner.skipWhitespace()
        var values: [Int] = []
        if scanner.consume(UInt8(ascii: "]")) { return values }
        repeat {
            scanner.skipWhitespace()
            let start = scanner.index
            guard try scanner.value(depth: 1) == .number, let value = Self.integer(scanner.bytes[start..<scanner.index]) else {
                throw wrongType
            }
            values.append(value)
            scanner.skipWhitespace()
        } while scanner.consume(UInt8(ascii: ","))
        return values
    }

    /// An array of strings (a recipe's ingredient names, say).
    package func optionalStrings(_ name: String) throws -> [String]? {
        guard let field = field(name), field.kind != .null else { return nil }
        let wrongType = JSONReadError.wrongType(field: name, expected: "an array of strings")
        guard field.kind == .array else { throw wrongType }
        var scanner = Scanner(bytes: UnsafeRawBufferPointer(rebasing: bytes[field.value]))
        scanner.index = 1
        scanner.skipWhitespace()
        var values: [String] = []
        if scanner.consume(UInt8(ascii: "]")) { return values }
        repeat {
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "\"") else { throw wrongType }
            let (content, kind) = try scanner.string()
            let raw = scanner.bytes[content]
            let utf8 = kind == .escapedString ? Self.unescape(raw) : Array(raw)
            values.append(try utf8.withUnsafeBufferPointer { try Self.text($0, name) })
            scanner.skipWhitespace()
        } while scanner.consume(UInt8(ascii: ","))
        return values
    }

    /// The raw bytes of a nested object (validated JSON), to be read with another reader.
    package func object(_ name: String) throws -> UnsafeRawBufferPointer {
        guard let field = field(name), field.kind != .null else { throw missingOrNull(name, "an object") }
        guard field.kind == .object else { throw JSONReadError.wrongType(field: name, expected: "an object") }
        return UnsafeRawBufferPointer(rebasing: bytes[field.value])
    }

    /// The raw bytes of a nested object; nil when the field is absent or null.
    package func optionalObject(_ name: String) throws -> UnsafeRawBufferPointer? {
        guard let field = field(name), field.kind != .null else { return nil }
        return try object(name)
    }

    private func missingOrNull(_ name: String, _ expected: String) -> JSONReadError {
        contains(name) ? .wrongType(field: name, expected: expected) : .missingField(name)
    }

    private func field(_ name: String) -> Field? {
        var name = name
        return name.withUTF8 { wanted in
            fields.first { field in
                if field.nameIsEscaped { return Self.name(of: field, in: bytes).utf8.elementsEqual(wanted) }
                return Self.equal(bytes[field.name], wanted)
            }
        }
    }

    /// Byte by byte: names are short, and the generic `elementsEqual` costs more than the compare.
    private static func equal(_ a: Slice<UnsafeRawBufferPointer>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var i = a.startIndex
        for byte in b {
            guard a[i] == byte else { return false }
            i += 1
        }
        return true
    }

    private static func sameName(_ a: Field, _ b: Field, in bytes: UnsafeRawBufferPointer) -> Bool {
        if !a.nameIsEscaped && !b.nameIsEscaped {
            return equal(bytes[a.name], UnsafeRawBufferPointer(rebasing: bytes[b.name]).assumingMemoryBound(to: UInt8.self))
        }
        return name(of: a, in: bytes) == name(of: b, in: bytes)
    }

    private static func name(of field: Field, in bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: nameBytes(of: field, in: bytes), as: UTF8.self)
    }

    private static func nameBytes(of field: Field, in bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let raw = bytes[field.name]
        return field.nameIsEscaped ? unescape(raw) : Array(raw)
    }

    // MARK: Conversions

    private static func text(_ utf8: UnsafeBufferPointer<UInt8>, _ name: String) throws -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw JSONReadError.invalidUTF8(field: name) }
        return text
    }

    /// A number whose value is an integer that fits in `Int`: digits alone, or, as JSON Schema's
    /// `integer` allows, with a zero fraction or an exponent (`-1.0`, `1e2`) up to 2^53, where every
    /// integer is exact in a double. The scanner has checked the number's syntax.
    private static func integer(_ digits: Slice<UnsafeRawBufferPointer>) -> Int? {
        if let plain = plainInteger(digits) { return plain }
        guard let value = Double(String(decoding: digits, as: UTF8.self)), value.rounded() == value,
              abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int(value)
    }

    private static func plainInteger(_ digits: Slice<UnsafeRawBufferPointer>) -> Int? {
        var index = digits.startIndex
        let negative = digits[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        while index < digits.endIndex {
            let digit = digits[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times10.subtractingReportingOverflow(Int(digit)) : times10.addingReportingOverflow(Int(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// The UTF-8 of a string's content with its escapes resolved. The scanner has validated every
    /// escape, so this cannot meet a malformed one.
    private static func unescape(_ raw: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        func hex4(_ at: Int) -> UInt32 {
            raw[at..<(at + 4)].reduce(0) { $0 << 4 | UInt32(hexValue($1)!) }
        }
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else { out.append(byte); index += 1; continue }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (hex4(index + 2) - 0xDC00)
                    index += 6
                }
                out.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
            default: out.append(escape) // '"', '\\', '/'
            }
        }
        return out
    }

    fileprivate static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Scanning

    /// Validates JSON values and reports where they end.
    struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        /// Deeper documents are refused rather than risking the stack.
        static let maxDepth = 64

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws {
            guard consume(byte) else { throw JSONReadError.malformed("expected \(what)", at: index) }
        }

        mutating func value(depth: Int) throws -> Kind {
            guard depth <= Self.maxDepth else { throw JSONReadError.malformed("nested more than \(Self.maxDepth) deep", at: index) }
            guard let byte = peek else { throw JSONReadError.malformed("expected a value", at: index) }
            switch byte {
            case UInt8(ascii: "\""): return try string().kind
            case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), depth: depth, keyed: true); return .object
            case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), depth: depth, keyed: false); return .array
            case UInt8(ascii: "t"): try literal("true"); return .bool
            case UInt8(ascii: "f"): try literal("false"); return .bool
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(); return .number
            default: throw JSONReadError.malformed("expected a value", at: index)
            }
        }

        private mutating func container(close: UInt8, depth: Int, keyed: Bool) throws {
            index += 1
            skipWhitespace()
            if consume(close) { return }
            repeat {
                skipWhitespace()
                if keyed {
                    guard peek == UInt8(ascii: "\"") else { throw JSONReadError.malformed("expected a field name", at: index) }
                    _ = try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"), "':'")
                    skipWhitespace()
                }
                _ = try value(depth: depth + 1)
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            try expect(close, keyed ? "',' or '}'" : "',' or ']'")
        }

        private mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                  UnsafeRawBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<(index + count)])
            else { throw JSONReadError.malformed("expected \(word)", at: index) }
            index += count
        }

        private mutating func digits() throws {
            let start = index
            while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            guard index > start else { throw JSONReadError.malformed("expected a digit", at: index) }
        }

        /// A number must also fit a Double: beyond it no reader here can hold it, and the oracles
        /// (Foundation's) refuse it. Only long numbers or ones with an exponent can overflow.
        private mutating func number() throws {
            let start = index
            try numberSyntax()
            let token = bytes[start..<index]
            if token.count > 15 || token.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                guard let value = Double(String(decoding: token, as: UTF8.self)), value.isFinite else {
                    throw JSONReadError.malformed("a number out of range", at: start)
                }
            }
        }

        private mutating func numberSyntax() throws {
            _ = consume(UInt8(ascii: "-"))
            if consume(UInt8(ascii: "0")) {
                if let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    throw JSONReadError.malformed("a number cannot start with 0", at: index)
                }
            } else {
                try digits()
            }
            if consume(UInt8(ascii: ".")) { try digits() }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                try digits()
            }
        }

        /// Scans a string at `index` (on its opening quote); returns the range of its content.
        mutating func string() throws -> (content: Range<Int>, kind: Kind) {
            index += 1
            let start = index
            var escaped = false
            var highBits: UInt8 = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return (start..<(index - 1), escaped ? .escapedString : highBits < 0x80 ? .asciiString : .string)
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                    try escape()
                } else if byte < 0x20 {
                    throw JSONReadError.malformed("a control character must be escaped in a string", at: index)
                } else if byte < 0x80 {
                    index += 1
                } else {
                    highBits = 0x80
                    try utf8Sequence()
                }
            }
            throw JSONReadError.malformed("unterminated string", at: start - 1)
        }

        /// One multi-byte UTF-8 sequence (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.
        private mutating func utf8Sequence() throws {
            let at = index
            let lead = bytes[index]
            let (length, secondRange): (Int, ClosedRange<UInt8>) = switch lead {
            case 0xC2...0xDF: (2, 0x80...0xBF)
            case 0xE0: (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
            case 0xED: (3, 0x80...0x9F)
            case 0xF0: (4, 0x90...0xBF)
            case 0xF1...0xF3: (4, 0x80...0xBF)
            case 0xF4: (4, 0x80...0x8F)
            default: (0, 0x80...0xBF)
            }
            guard length > 0, index + length <= bytes.count, secondRange.contains(bytes[index + 1]),
                  (2..<length).allSatisfy({ (0x80...0xBF).contains(bytes[index + $0]) }) else {
                throw JSONReadError.malformed("invalid UTF-8 in a string", at: at)
            }
            index += length
        }

        private mutating func escape() throws {
            let at = index
            index += 1
            guard let byte = peek else { throw JSONReadError.malformed("unterminated escape", at: at) }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 1
            case UInt8(ascii: "u"):
                index += 1
                let unit = try hex4()
                if (0xD800..<0xDC00).contains(unit) {
                    guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), (0xDC00..<0xE000).contains(try hex4()) else {
                        throw JSONReadError.malformed("a high surrogate must be followed by a low one", at: at)
                    }
                } else if (0xDC00..<0xE000).contains(unit) {
                    throw JSONReadError.malformed("a lone low surrogate", at: at)
                }
            default:
                throw JSONReadError.malformed("invalid escape", at: at)
            }
        }

        private mutating func hex4() throws -> UInt32 {
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek, let digit = JSONObjectReader.hexValue(byte) else {
                    throw JSONReadError.malformed("expected four hex digits", at: index)
                }
                unit = unit << 4 | UInt32(digit)
                index += 1
            }
            return unit
        }
    }
}

package enum JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String, at: Int)
    case duplicateField(String)
    case missingField(String)
    case wrongType(field: String, expected: String)
    case invalidUTF8(field: String)

    package var description: String {
        switch self {
        case .malformed(let reason, let offset): "not valid JSON: \(reason) at byte \(offset)"
        case .duplicateField(let name): "the field '\(name)' appears twice"
        case .missingField(let name): "missing field '\(name)'"
        case .wrongType(let name, let expected): "'\(name)' must be \(expected)"
        case .invalidUTF8(let name): "'\(name)' is not valid UTF-8"
        }
    }
}
