import Foundation
import PantryDomain
import PantryRandom
import Testing

@Suite struct IngredientNameTests {
    /// The rule as written for any text: lowercased, split at what is neither a letter nor a
    /// number, each word made singular. `words` reads ASCII byte by byte and must agree with it.
    static func unicodeWords(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map { IngredientName.singular(String($0)) }
    }

    @Test("ASCII text gives the same words as the rule read for any text", arguments: [1, 42, 0xDEAD_BEEF] as [UInt64])
    func asciiWordsAgreeWithTheUnicodeRule(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let alphabet = Array("aAbBeEiIoOsSuUyYzZ09 \t\r\n-,.()/'&%\u{0}\u{7F}".utf8)
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(IngredientName.words(text) == Self.unicodeWords(text), "seed \(seed): \(bytes)")
        }
    }

    @Test("Text beyond ASCII keeps the Unicode rule", arguments: ["CRÈME fraîche", "Jalapeños", "葱 and 🍅 Tomatoes", "olive\u{A0}OIL"])
    func textBeyondASCIIKeepsTheUnicodeRule(_ text: String) {
        #expect(IngredientName.words(text) == Self.unicodeWords(text))
    }
}

/// The point key of an ingredient, checked against the case file the web app's `pointKey` is
/// tested with too (`node --test Tests/web`): one rule, written twice, held to the same cases.
@Suite struct PointKeyCaseFileTests {
    private struct CaseFile: Decodable {
        struct Case: Decodable { var name: String; var key: String }
        var cases: [Case]
    }

    static let cases: [(name: String, key: String)] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/ingredient-keys.json")
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(CaseFile.self, from: data) else { return [] }
        return file.cases.map { ($0.name, $0.key) }
    }()

    @Test func theCaseFileIsRead() {
        #expect(Self.cases.count >= 10)
    }

    @Test("The point key of each name in Tests/Fixtures/ingredient-keys.json", arguments: cases.map(\.name))
    func pointKeyMatchesTheCaseFile(_ name: String) throws {
        let key = try #require(Self.cases.first { $0.name == name }?.key)
        #expect(IngredientName.words(name).joined(separator: " ") == key)
    }
}
