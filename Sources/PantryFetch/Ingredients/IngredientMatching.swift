import Foundation
import PantryDomain

/// Autocomplete over ingredient names; word matching itself is `IngredientName`.
enum IngredientMatching {
    /// Names that start with `prefix` (or have a word that does), accents aside, best first:
    /// whole-name prefix before word prefix, then shorter, then alphabetical. A plural prefix
    /// also finds the singular name ("eggs" finds "egg"), and one food is offered once ("egg"
    /// and "eggs" were both shown, as were "jalapeno" and "jalapeño").
    static func autocomplete(prefix: String, in names: [String], limit: Int) -> [String] {
        autocomplete(prefix: prefix, in: Names(names), limit: limit)
    }

    /// Names lowercased, each once, with their accents dropped: folded once for a catalog's
    /// thousands (folding them per request cost the burst after a restart seconds).
    struct Names: Sendable {
        let names: [String]
        /// Each word of each name (accents dropped), sorted, with the name it is in and whether
        /// it starts the name: a prefix is looked up, not compared with every name.
        let words: [(word: String, name: Int, first: Bool)]

        init(_ raw: [String]) {
            var seen = Set<String>()
            names = raw.map { $0.lowercased() }.filter { seen.insert($0).inserted }
            words = names.enumerated().flatMap { name, text in
                IngredientMatching.plain(text).split(separator: " ").enumerated().map { (String($1), name, $0 == 0) }
            }.sorted { $0.word < $1.word }
        }

        /// Names with a word starting with `prefix`: rank 0 when the name starts with it.
        func starting(with prefix: String) -> [(rank: Int, name: Int)] {
            var low = 0, high = words.count
            while low < high {
                let middle = (low + high) / 2
                if words[middle].word < prefix { low = middle + 1 } else { high = middle }
            }
            var found: [(rank: Int, name: Int)] = []
            while low < words.count, words[low].word.hasPrefix(prefix) {
                found.append((words[low].first ? 0 : 1, words[low].name))
                low += 1
            }
            return found
        }
    }

    static func autocomplete(prefix: String, in names: Names, limit: Int) -> [String] {
        let typed = plain(prefix)
        let prefixes = Set([typed, IngredientName.singular(typed)])
        // A name whose start matches is rank 0; a typed prefix with a space matches names' starts.
        var best: [Int: Int] = [:]
        for prefix in prefixes {
            let head = String(prefix.split(separator: " ").first ?? "")
            for hit in names.starting(with: head) where prefix == head || IngredientMatching.plain(names.names[hit.name]).hasPrefix(prefix) {
                let rank = prefix == head ? hit.rank : 0
                best[hit.name] = min(best[hit.name] ?? rank, rank)
            }
        }
        let scored = best.map { (rank: $0.value, name: names.names[$0.key]) }
        var offered = Set<[String]>()
        var chosen: [String] = []
        for candidate in scored.sorted(by: { ($0.rank, $0.name.count, $0.name) < ($1.rank, $1.name.count, $1.name) }) {
            guard chosen.count < limit else { break }
            if offered.insert(FoodVocabulary.words(candidate.name)).inserted { chosen.append(candidate.name) }
        }
        return chosen
    }

    /// The food an ingredient's name is, as autocomplete offers it: the name up to its first comma,
    /// bracket or word that starts a qualifier or an alternative (or holds a digit), and at most
    /// four words. Names read from free-text
    /// lines keep what followed the food ("eggs either scrambled", "butter or margarine, softened"),
    /// and autocomplete offered them as they were; nil when nothing is left.
    static func offered(_ name: String) -> String? {
        var kept: [Substring] = []
        let head = name.prefix { !",;(:".contains($0) }
        for word in head.split(separator: " ") {
            let bare = word.lowercased().trimmingCharacters(in: .punctuationCharacters)
            if qualifiers.contains(bare) || word.contains(where: \.isNumber) { break }
            kept.append(word)
        }
        let trimmed = kept.joined(separator: " ").trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
        return trimmed.isEmpty || kept.count > 4 ? nil : trimmed
    }

    /// Words after which a name says how, or what else, rather than which food.
    private static let qualifiers: Set<String> = [
        "either", "or", "and/or", "such", "preferably", "if", "for", "to", "about", "plus", "optional", "as", "like",
        "cut", "into", "see", "divided", "at", "from", "e.g", "i.e", "etc",
    ]

    static func plain(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
