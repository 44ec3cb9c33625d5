/// Writes one JSON object of strings, numbers, booleans, nested objects and already-encoded JSON.
/// Event payloads, event documents and outcomes are written on hot paths (the single writer, every
/// published event), where this is several times cheaper than `JSONEncoder`. `JSONObjectReader`
/// reads what it writes; the tests hold both to `JSONSerialization`.
package struct JSONObjectWriter {
    package private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]

    package init() { bytes.reserveCapacity(256) }

    package mutating func field(_ key: String, _ value: String) {
        self.key(key)
        appendString(value)
    }

    package mutating func field(_ key: String, _ value: String?) {
        guard let value else { return }
        field(key, value)
    }

    package mutating func field(_ key: String, _ value: Int) {
        field(key, Int64(value))
    }

    package mutating func field(_ key: String, _ value: Int64) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    package mutating func field(_ key: String, _ values: [Int64]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: String(value).utf8)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    package mutating func field(_ key: String, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A value that is already JSON (a stored event payload, a nested object written before).
    package mutating func field(_ key: String, json: some Sequence<UInt8>) {
        self.key(key)
        bytes.append(contentsOf: json)
    }

    package mutating func field(_ key: String, _ value: Double?) {
        guard let value else { return }
        self.key(key)
        // Validation keeps amounts finite, and Swift's shortest description of a finite Double is valid JSON.
        bytes.append(contentsOf: value.description.utf8)
    }

    package mutating func field(_ key: String, _ value: Bool) {
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    package mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func key(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Copies runs that need no escape in one go: most strings are one such run.
    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var run = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                appendEscape(byte)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case UInt8(ascii: "\n"): bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case UInt8(ascii: "\r"): bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case UInt8(ascii: "\t"): bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
