/// How an ingredient name is compared, everywhere: recipe search, and the points rule that a
/// used ingredient must be one of the recipe's. Case- and plural-insensitive, whole words.
package enum IngredientName {
    /// Lowercase words with a simple English plural removed ("Tomatoes" -> "tomato",
    /// "berries" -> "berry", "eggs" -> "egg"), so "egg" matches "2 eggs" but not "eggplant".
    package static func words(_ text: String) -> [String] {
        if let words = asciiWords(text) { return words }
        return text.lowercased()
            .split { !($0.isLetter || $0.isNumber) }
            .map { singular(String($0)) }
    }

    /// `words` of ASCII text, byte by byte: the same words (an ASCII letter or digit is exactly
    /// what `isLetter || isNumber` keeps there), without Unicode case mapping and grapheme breaking,
    /// which were 2.5% of the core's CPU per point (perf, bench-http); nil for other text.
    private static func asciiWords(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var words: [String] = []
            var word: [UInt8] = []
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte | 0x20)
                case 0x80...: return nil
                default:
                    if !word.isEmpty { words.append(singular(String(decoding: word, as: UTF8.self))); word.removeAll(keepingCapacity: true) }
                }
            }
            if !word.isEmpty { words.append(singular(String(decoding: word, as: UTF8.self))) }
            return words
        }
    }

    /// The one key for every spelling of an ingredient: its singular words ("Cherry Tomatoes" ->
    /// "cherry tomato"); text with no letters or digits keeps its lowercased words.
    package static func key(_ name: String) -> String {
        let words = words(name)
        return words.isEmpty ? normalizedIngredient(name) : words.joined(separator: " ")
    }

    package static func singular(_ word: String) -> String {
        guard word.count > 3 else { return word }
        if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("oes") || word.hasSuffix("ches") || word.hasSuffix("shes") || word.hasSuffix("sses") {
            return String(word.dropLast(2))
        }
        if word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us") { return String(word.dropLast()) }
        return word
    }

    /// True when the words of `needle` occur consecutively in `haystack`.
    package static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    /// Salt, pepper (black, white or ground, not a bell pepper), water and any oil: what every
    /// kitchen has, so a recipe needing them is not missing anything.
    package static func isPantryStaple(_ name: String) -> Bool {
        let words = words(name).filter { !["and", "of", "to", "taste", "ground", "fine", "coarse", "freshly", "cold", "warm", "hot", "boiling"].contains($0) }
        guard let last = words.last else { return false }
        switch last {
        case "salt", "water", "oil": return true
        case "pepper": return words.count == 1 || ["black", "white", "salt"].contains(words[words.count - 2])
        default: return false
        }
    }

    /// Whether the recipe ingredient named `name` is the queried ingredient `query`.
    package static func matches(ingredient name: String, query: String) -> Bool {
        contains(words(name), words(query))
    }
}
