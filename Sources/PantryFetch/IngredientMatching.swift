import PantryDomain

/// Autocomplete over ingredient names; word matching itself is `IngredientName`.
enum IngredientMatching {
    /// Names that start with `prefix` (or have a word that does), best first:
    /// whole-name prefix before word prefix, then shorter, then alphabetical.
    /// A plural prefix also finds the singular name ("eggs" finds "egg").
    static func autocomplete(prefix: String, in names: [String], limit: Int) -> [String] {
        let typed = prefix.lowercased()
        let prefixes = Set([typed, IngredientName.singular(typed)])
        var seen = Set<String>()
        let scored: [(rank: Int, name: String)] = names.compactMap { raw in
            let name = raw.lowercased()
            guard seen.insert(name).inserted else { return nil }
            if prefixes.contains(where: name.hasPrefix) { return (0, name) }
            if name.split(separator: " ").contains(where: { word in prefixes.contains { word.hasPrefix($0) } }) { return (1, name) }
            return nil
        }
        return scored.sorted { ($0.rank, $0.name.count, $0.name) < ($1.rank, $1.name.count, $1.name) }
            .prefix(limit).map(\.name)
    }
}
