import Foundation
import PantryJSON
import PantryRandom
import Testing

/// The reader against `JSONSerialization` (an independent parser) and against its own writer.
@Suite struct JSONObjectReaderTests {
    /// Reads `json` and returns what `body` makes of it.
    func read<T>(_ json: String, _ body: (borrowing JSONObjectReader) throws -> T) throws -> T {
        try Array(json.utf8).withUnsafeBytes { try JSONObjectReader.read($0, body) }
    }

    func isValid(_ json: String) -> Bool {
        (try? read(json) { _ in true }) ?? false
    }

    @Test func readsEveryKindOfValue() throws {
        let json = #"""
            {"s": "plain", "e": "a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4e2d\ud83c\udf45", "u": "jalapeño 🍅",
             "i": -42, "big": 9223372036854775807, "d": 2.5e-3, "t": true, "f": false, "n": null,
             "o": {"x": [1, {"y": []}], "z": {}}, "a": [ ] }
            """#
        try read(json) { (r: borrowing JSONObjectReader) throws in
            #expect(r.names == ["s", "e", "u", "i", "big", "d", "t", "f", "n", "o", "a"])
            #expect(try r.string("s") == "plain")
            #expect(try r.string("e") == "a\"b\\c/d\u{8}\u{C}\n\r\tAé中🍅")
            #expect(try r.string("u") == "jalapeño 🍅")
            #expect(try r.int("i") == -42)
            #expect(try r.int("big") == Int.max)
            #expect(try r.optionalDouble("d") == 0.0025)
            #expect(try r.optionalDouble("i") == -42)
            #expect(try r.bool("t") == true)
            #expect(try r.bool("f") == false)
            #expect(try r.optionalString("n") == nil)
            #expect(try r.optionalString("absent") == nil)
            #expect(try r.optionalInt("n") == nil)
            #expect(String(decoding: try r.object("o"), as: UTF8.self) == #"{"x": [1, {"y": []}], "z": {}}"#)
            #expect(try JSONObjectReader.read(try r.object("o")) { $0.names } == ["x", "z"])
        }
    }

    @Test func errorsNameTheField() throws {
        try read(#"{"a": "x", "b": 1.5, "c": null, "d": 99999999999999999999}"#) { (r: borrowing JSONObjectReader) throws in
            #expect(throws: JSONReadError.missingField("z")) { try r.string("z") }
            #expect(throws: JSONReadError.wrongType(field: "a", expected: "an integer")) { try r.int("a") }
            #expect(throws: JSONReadError.wrongType(field: "b", expected: "an integer")) { try r.int("b") }
            #expect(throws: JSONReadError.wrongType(field: "b", expected: "a string")) { try r.string("b") }
            #expect(throws: JSONReadError.wrongType(field: "c", expected: "a string")) { try r.string("c") }
            #expect(throws: JSONReadError.wrongType(field: "d", expected: "an integer")) { try r.int("d") }
            #expect(throws: JSONReadError.wrongType(field: "a", expected: "an object")) { try r.object("a") }
        }
        #expect(throws: JSONReadError.duplicateField("a")) { try read(#"{"a": 1, "\u0061": 2}"#) { _ in } }
    }

    /// JSON Schema's `integer` is any number with a zero fraction, so a client following the
    /// schemas may send `-1.0`: it is the integer -1 here too. Beyond 2^53 a double is not exact.
    @Test func integersMayBeWrittenWithAZeroFractionOrAnExponent() throws {
        try read(#"{"a": -1.0, "b": 1e2, "c": 2.50E1, "d": 9007199254740992.0, "e": 9007199254740994.0, "f": 1.000001, "g": -0.0}"#) {
            (r: borrowing JSONObjectReader) throws in
            #expect(try r.int("a") == -1 && r.int("b") == 100 && r.int("c") == 25 && r.int("g") == 0)
            #expect(try r.int("d") == 9_007_199_254_740_992)
            #expect(throws: JSONReadError.wrongType(field: "e", expected: "an integer")) { try r.int("e") }
            #expect(throws: JSONReadError.wrongType(field: "f", expected: "an integer")) { try r.int("f") }
        }
    }

    @Test func readsArraysOfIntegers() throws {
        try read(#"{"a": [1, -2 ,3], "e": [], "n": null, "f": [1.5], "s": ["1"], "o": {"x": 1}}"#) { (r: borrowing JSONObjectReader) throws in
            #expect(try r.optionalIntegers("a") == [1, -2, 3])
            #expect(try r.optionalIntegers("e") == [])
            #expect(try r.optionalIntegers("n") == nil)
            #expect(try r.optionalIntegers("absent") == nil)
            for name in ["f", "s", "o"] {
                #expect(throws: JSONReadError.wrongType(field: name, expected: "an array of integers")) { _ = try r.optionalIntegers(name) }
            }
        }
    }

    /// Invalid UTF-8 anywhere refuses the whole document, in a field never read or a nested one:
    /// a truncated sequence, a stray continuation byte, an overlong form, a surrogate, past U+10FFFF.
    @Test(arguments: [[0xC3, 0x28], [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                      [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func invalidUTF8AnywhereIsRefused(_ sequence: [UInt8]) throws {
        for document in [Array(#"{"unread": ""#.utf8) + sequence + Array(#"", "a": 1}"#.utf8),
                         Array(#"{"a": {"b": [""#.utf8) + sequence + Array(#""]}}"#.utf8)] {
            #expect(throws: JSONReadError.self) {
                try document.withUnsafeBytes { try JSONObjectReader.read($0) { _ in } }
            }
            #expect((try? JSONSerialization.jsonObject(with: Data(document))) == nil, "the oracle refuses it too")
        }
        // Every valid sequence at the edges of those ranges passes.
        let valid: [UInt8] = Array(#"{"a": ""#.utf8) + [0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xEF, 0xBF, 0xBF,
                                                      0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF] + Array(#""}"#.utf8)
        try valid.withUnsafeBytes { buffer in
            try JSONObjectReader.read(buffer) { (r: borrowing JSONObjectReader) throws in
                #expect(try r.string("a") == String(decoding: valid[7..<(valid.count - 2)], as: UTF8.self))
            }
        }
    }

    @Test(arguments: [#"{"a":-2.5e943}"#, #"{"unread":1e309,"a":1}"#, #"{"a":[1, 2e400]}"#,
                      "{\"a\":1" + String(repeating: "0", count: 400) + "}"])
    func numbersBeyondADoubleAreRefused(_ json: String) {
        #expect(!isValid(json))
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) == nil, "the oracle refuses it too")
    }

    @Test func numbersWithinADoubleAreRead() throws {
        #expect(isValid(#"{"a":1.7976931348623157e308,"b":-1e-400,"c":123456789012345678901234567890}"#))
    }

    /// Duplicate names are found however many fields there are, and however they are escaped.
    @Test func duplicatesAmongManyFieldsAreFound() throws {
        let names = (0..<6_000).map { "\"f\($0)\":\($0)" }
        #expect(isValid("{" + names.joined(separator: ",") + "}"))
        #expect(!isValid("{" + names.joined(separator: ",") + ",\"f17\":1}"))
        #expect(!isValid("{" + names.joined(separator: ",") + ",\"f\\u0031\":1}"))   // "f1" escaped
        #expect(!isValid("{\"a\":1," + names.joined(separator: ",") + ",\"a\":2}"))
    }

    /// Documents both parsers must refuse. (Where RFC 8259 leaves a choice, e.g. duplicate names or
    /// lone surrogates, the reader is stricter and has its own tests.)
    @Test(arguments: [
        "", " ", "[]", "1", "\"a\"", "null", "{", "}", "{,}", #"{"a"}"#, #"{"a":}"#, #"{"a":1 "b":2}"#,
        #"{a:1}"#, #"{'a':1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":-}"#, #"{"a":1e}"#, #"{"a":+1}"#,
        #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"abc}"#, "{\"a\":\"tab\there\"}",
        #"{"a":{"b"}}"#, #"{"a":1}x"#, #"{"a":1}{}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#,
    ])
    func malformedDocumentsAreRefused(_ json: String) {
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] == nil, "JSONSerialization accepts \(json)")
        #expect(!isValid(json), "the reader accepts \(json)")
    }

    /// RFC 8259 forbids trailing commas; `JSONSerialization` lets them through, the reader does not.
    @Test(arguments: [#"{"a":1,}"#, #"{"a":[1,]}"#, #"{"a":{"b":1,}}"#])
    func trailingCommasAreRefused(_ json: String) {
        #expect(!isValid(json))
    }

    @Test func everyProperPrefixOfADocumentIsRefused() {
        let json = #"{"userId": "u1", "n": [1, -2.5e+3, {"x": "\u00e9\"", "y": null}], "ok": true}"#
        let bytes = Array(json.utf8)
        #expect(isValid(json))
        for end in 0..<bytes.count {
            let prefix = String(decoding: bytes[..<end], as: UTF8.self)
            #expect(!isValid(prefix), "accepted the prefix \(prefix)")
        }
    }

    @Test func depthIsLimited() {
        let deep = { (n: Int) in "{\"a\":" + String(repeating: "[", count: n) + String(repeating: "]", count: n) + "}" }
        #expect(isValid(deep(60)))
        #expect(!isValid(deep(100_000)))
    }

    /// Random objects written by `JSONSerialization` (which escapes '/' and writes non-ASCII raw)
    /// and by `JSONObjectWriter` (which writes `\u00XX` for control characters) read back the same.
    /// The seed is the test's argument, so a failure names it. Drawn with the package's one
    /// generator (SplitMix64); this file had an LCG of its own until 2026-11-27, so a seed reported
    /// before then makes other objects now.
    @Test(arguments: 1...5 as ClosedRange<UInt64>)
    func randomObjectsReadBackFromBothWriters(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            var strings: [String: String] = [:]
            var ints: [String: Int] = [:]
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                strings["s" + randomText(&rng)] = randomText(&rng)
                ints["i" + randomText(&rng)] = Int.random(in: Int.min...Int.max, using: &rng)
            }
            var writer = JSONObjectWriter()
            for (key, value) in strings { writer.field(key, value) }
            for (key, value) in ints { writer.field(key, value) }
            let ours = writer.finish()
            var object: [String: Any] = strings
            for (key, value) in ints { object[key] = value }
            let theirs = try JSONSerialization.data(withJSONObject: object)
            for document in [ours, Array(theirs)] {
                try document.withUnsafeBytes { buffer in
                    try JSONObjectReader.read(buffer) { (r: borrowing JSONObjectReader) throws in
                        #expect(Set(r.names) == Set(strings.keys).union(ints.keys))
                        for (key, value) in strings { #expect(try r.string(key) == value) }
                        for (key, value) in ints { #expect(try r.int(key) == value) }
                    }
                }
            }
        }
    }

    private func randomText(_ rng: inout SeededGenerator) -> String {
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}",
                                          "é", "中", "\u{2028}", "🍅", "\u{FFFF}", "\u{10FFFF}"]
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) { text.append(alphabet.randomElement(using: &rng)!) }
        return String(text)
    }

    /// `JSONArrayReader` finds each element of an array where `JSONSerialization` sees it, and
    /// refuses what the object reader would refuse inside them.
    @Test("An array's elements are found where they lie, nested arrays and strings with brackets included")
    func arrayElementsAreFoundWhereTheyLie() throws {
        let json = #" [ {"a": "]," }, [1, [2]] ,"x\"]" , 3.5,null ] "#
        let bytes = Array(json.utf8)
        let ranges = try bytes.withUnsafeBytes { try JSONArrayReader.elements($0) }
        #expect(ranges.map { String(decoding: bytes[$0], as: UTF8.self) } == [#"{"a": "]," }"#, "[1, [2]]", #""x\"]""#, "3.5", "null"])
        #expect(try Array("[]".utf8).withUnsafeBytes { try JSONArrayReader.elements($0) }.isEmpty)
    }

    @Test("A broken array, or an array with a broken element, is refused", arguments: [
        "", "{}", "[", "[1", "[1,]", "[,1]", "[1 2]", "[1]]", "[1] x", #"[{"a":01}]"#, "[\"\u{1}\"]",
    ])
    func brokenArraysAreRefused(_ json: String) {
        #expect(throws: JSONReadError.self) { try Array(json.utf8).withUnsafeBytes { try JSONArrayReader.elements($0) } }
    }
}
