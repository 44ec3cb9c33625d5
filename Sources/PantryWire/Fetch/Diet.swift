import Foundation

/// Pantry's diet vocabulary: Spoonacular's own lowercase names.
package enum Diet {
    package static let vocabulary: [String] = [
        "gluten free", "ketogenic", "vegetarian", "lacto ovo vegetarian", "vegan",
        "pescatarian", "paleo", "primal", "whole 30", "dairy free",
    ]

    /// Maps upstream spellings onto the vocabulary, drops unknown ones and orders the
    /// result like `vocabulary`. Vegan and lacto-ovo recipes are also vegetarian, so a
    /// "vegetarian" filter finds them.
    package static func normalize(_ names: [String]) -> [String] {
        var found = Set<String>()
        for raw in names {
            let name = raw.lowercased().trimmingCharacters(in: .whitespaces)
            switch name {
            case "paleolithic": found.insert("paleo")
            case "pescetarian": found.insert("pescatarian")
            case "whole30": found.insert("whole 30")
            case "keto": found.insert("ketogenic")
            default: if vocabulary.contains(name) { found.insert(name) }
            }
        }
        if found.contains("vegan") || found.contains("lacto ovo vegetarian") {
            found.insert("vegetarian")
        }
        return vocabulary.filter(found.contains)
    }
}
