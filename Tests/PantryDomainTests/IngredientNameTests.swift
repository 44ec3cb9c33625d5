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
