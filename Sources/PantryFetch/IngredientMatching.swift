/// Text matching for the embedded catalog: case- and plural-insensitive, whole words.
enum IngredientMatching {
    /// Lowercase words with a simple English plural removed ("Tomatoes" -> "tomato",
    /// "berries" -> "berry", "eggs" -> "egg"), so "egg" matches "2 eggs" but not "eggplant".
    static func words(_ text: String) -> [String] {
        text.lowercased()
            .split { !($0.isLetter || $0.isNumber) }
            .map { singular(String($0)) }
    }

    static func singular(_ word: String) -> String {
        guard word.count > 3 else { return word }
        if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("oes") || word.hasSuffix("ches") || word.hasSuffix("shes") || word.hasSuffix("sses") {
            return String(word.dropLast(2))
        }
        if word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us") { return String(word.dropLast()) }
        return word
    }

    /// True when the words of `needle` occur consecutively in `haystack`.
    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            Array(haystack[start..<(start + needle.count)]) == needle
        }
    }

    /// Whether the recipe ingredient named `name` is the queried ingredient `query`.
    static func matches(ingredient name: String, query: String) -> Bool {
        contains(words(name), words(query))
    }

    /// Names that start with `prefix` (or have a word that does), best first:
    /// whole-name prefix before word prefix, then shorter, then alphabetical.
    static func autocomplete(prefix: String, in names: [String], limit: Int) -> [String] {
        let prefix = prefix.lowercased()
        var seen = Set<String>()
        let scored: [(rank: Int, name: String)] = names.compactMap { raw in
            let name = raw.lowercased()
            guard seen.insert(name).inserted else { return nil }
            if name.hasPrefix(prefix) { return (0, name) }
            if name.split(separator: " ").contains(where: { $0.hasPrefix(prefix) }) { return (1, name) }
            return nil
        }
        return scored.sorted { ($0.rank, $0.name.count, $0.name) < ($1.rank, $1.name.count, $1.name) }
            .prefix(limit).map(\.name)
    }
}
