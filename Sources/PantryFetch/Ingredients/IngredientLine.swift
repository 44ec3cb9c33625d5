import Foundation
import PantryDomain
import PantryWire

/// Reads a recipe's free-text ingredient line ("1½ pounds (570 g) boneless chicken thighs, halved")
/// into an amount, a unit and the ingredient's name, for sources that give only the line. The name
/// need not be exact: search matches an ingredient by consecutive words, so "boneless chicken thigh"
/// is found as "chicken" and "chicken thigh".
enum IngredientLine {
    static func parse(_ raw: String) -> Ingredient {
        let original = collapseSpaces(raw)
        var rest = Substring(collapseSpaces(removingParentheses(original)))
        var amount = leadingAmount(&rest)
        var unit: String?
        if amount != nil {
            rest = rest.drop { $0 == "-" || $0 == " " || $0 == "+" }
            dropPackageSize(&rest)
            if let size = leadingSize(&rest) {
                // "1-inch piece of ginger" is an inch of it; "9-inch pie crust" says how big, not how much.
                if pieceWords.contains(firstWord(rest)) {
                    unit = size
                    rest = rest.drop { $0 != " " }.drop { $0 == " " }
                } else {
                    amount = nil
                }
            } else {
                unit = leadingUnit(&rest)
                if let unit, let extra = plusAmount(&rest, in: unit) { amount! += extra }
            }
        } else {
            // "Heavy pinch of sea salt", "A generous handful of sugar": a unit without an amount; and a
            // measure whose number the file lost ("cup (115 grams) unsalted butter").
            var measured = rest
            if let found = leadingUnit(&measured), measured.lowercased().hasPrefix("of ") || MeasureUnit.named(found) != nil {
                unit = found
                rest = measured
            }
        }
        let measured = amount != nil || unit != nil
        return Ingredient(name: name(from: rest, measured: measured) ?? String(original.lowercased().prefix(100)),
                          amount: amount, unit: unit, original: original)
    }

    private static func firstWord(_ text: Substring) -> String {
        String(text.prefix { $0 != " " }).lowercased().trimmingCharacters(in: .punctuationCharacters)
    }

    /// "14-oz" in "1 14-oz can tomatoes": the size of what is counted, not the amount.
    private static func dropPackageSize(_ text: inout Substring) {
        let word = text.prefix { $0 != " " }
        guard let hyphen = word.firstIndex(of: "-"), isAmount(String(word[..<hyphen])),
              MeasureUnit.named(String(word[word.index(after: hyphen)...])) != nil else { return }
        text = text.dropFirst(word.count).drop { $0 == " " }
    }

    private static let sizeWords: Set<String> = ["inch", "inches", "in.", "cm", "cube", "cubes", "piece", "pieces"]

    /// What an ingredient comes in, unlike a count unit that is part of its name ("leaf gelatine").
    private static let containers: Set<String> = {
        let singular = ["can", "jar", "package", "packet", "bottle", "bag", "box", "tin", "carton", "container", "envelope"]
        return Set(singular + singular.map { $0.hasSuffix("x") ? $0 + "es" : $0 + "s" })
    }()

    private static let pieceWords: Set<String> = ["piece", "pieces", "knob", "knobs", "chunk", "chunks", "length", "lengths", "stick", "sticks"]

    /// "inch", "in.", "cm" after an amount: a size ("1-inch piece"), told apart from "1 ingredient".
    private static func leadingSize(_ text: inout Substring) -> String? {
        let word = String(text.prefix { $0 != " " }).lowercased()
        let size: String? = switch word {
        case "inch", "inches", "in.", "inch.": "inch"
        case "cm", "centimetre", "centimetres", "centimeter", "centimeters": "cm"
        default: nil
        }
        guard let size else { return nil }
        text = text.dropFirst(word.count).drop { $0 == " " }
        while ["wide", "thick", "long"].contains(firstWord(text)) { text = text.drop { $0 != " " }.drop { $0 == " " } }
        return size
    }

    /// "1 tablespoon plus ½ teaspoon salt": the second amount in the first's unit, when both convert.
    private static func plusAmount(_ text: inout Substring, in unit: String) -> Double? {
        guard firstWord(text) == "plus", let first = MeasureUnit.named(unit) else { return nil }
        var after = text.dropFirst("plus".count).drop { $0 == " " }
        guard let extra = leadingAmount(&after) else { return nil }
        let word = String(after.prefix { $0 != " " })
        guard let second = MeasureUnit.named(word), second.quantity == first.quantity else { return nil }
        text = after.dropFirst(word.count).drop { $0 == " " }
        return extra * second.base / first.base
    }

    /// "1", "1.5", "3/4", "½", "1 ½", "1½"; a range ("4–5", "2 to 3") counts as its first number.
    static func leadingAmount(_ text: inout Substring) -> Double? {
        var amount: Double?
        // A whole number and a fraction add up ("1 ½"); a second whole number is a size ("1 14-oz can").
        while let (value, remainder) = number(text), amount == nil || value < 1 {
            amount = (amount ?? 0) + value
            text = remainder.drop { $0 == " " }
        }
        guard let amount else { return nil }
        for separator in ["–", "-", "to ", "or "] where text.hasPrefix(separator) {
            var after = text.dropFirst(separator.count).drop { $0 == " " }
            if number(after) != nil {
                while let (_, remainder) = number(after) { after = remainder.drop { $0 == " " } }
                text = after
            }
            break
        }
        return amount
    }

    private static let vulgarFractions: [Character: Double] = [
        "½": 0.5, "⅓": 1.0 / 3, "⅔": 2.0 / 3, "¼": 0.25, "¾": 0.75, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875,
    ]

    /// A leading "3", "1.5", "3/4" or "½", and what follows it.
    static func number(_ text: Substring) -> (Double, Substring)? {
        if let first = text.first, let fraction = vulgarFractions[first] { return (fraction, text.dropFirst()) }
        let digits = text.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "/") }
        guard let first = digits.first, first.isNumber else { return nil }
        let parts = digits.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return Double(digits).map { ($0, text.dropFirst(digits.count)) }
        case 2:
            guard let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 else { return nil }
            return (numerator / denominator, text.dropFirst(digits.count))
        default: return nil
        }
    }

    /// Units that count things rather than measure them.
    private static let countUnits: [String: String] = {
        let units = ["can", "package", "packet", "clove", "pinch", "slice", "bunch", "handful", "stick", "dash", "sprig",
                     "head", "piece", "jar", "bottle", "bag", "box", "envelope", "stalk", "drop", "sheet", "leaf", "cube",
                     "fillet", "strip", "tin", "carton", "loaf", "ear", "knob", "rasher", "scoop", "shot", "drizzle", "splash",
                     "container"]
        var spellings: [String: String] = [:]
        for unit in units {
            spellings[unit] = unit
            spellings[unit + "s"] = unit
            spellings[unit + "es"] = unit
        }
        spellings["leaves"] = "leaf"
        spellings["loaves"] = "loaf"
        return spellings
    }()

    /// A measure ("cups", "fl oz", "Tbsp.") or count unit ("cloves") at the start of `text`, also
    /// after "a" or a size ("½ a cup", "1 large can", "3 heaping tbsp"), which then go with it.
    private static func leadingUnit(_ text: inout Substring) -> String? {
        let words = text.split(separator: " ", maxSplits: 4)
        var skipped = 0
        while skipped < words.count - 1, unitQualifiers.contains(words[skipped].lowercased()) { skipped += 1 }
        for start in Set([skipped, 0]).sorted(by: >) {
            let candidates = words.dropFirst(start)
            for count in [2, 1] where candidates.count >= count {
                let spelled = candidates.prefix(count).joined(separator: " ")
                let phrase = spelled.trimmingCharacters(in: CharacterSet(charactersIn: ",;:"))
                let unit = MeasureUnit.named(phrase)?.symbol ?? (count == 1 ? countUnits[phrase.lowercased()] : nil)
                if let unit {
                    let consumed = words.prefix(start).map { $0.count + 1 }.reduce(0, +) + spelled.count
                    text = text.dropFirst(consumed).drop { $0 == " " }
                    return unit
                }
            }
        }
        return nil
    }

    private static let unitQualifiers: Set<String> = ["a", "an", "large", "small", "medium", "heaping", "heaped", "generous",
                                                      "level", "scant", "rounded", "good", "big", "heavy", "of", "us", "u.s.", "imperial"]

    /// Words that say how an ingredient is prepared or chosen, not what it is.
    private static let preparation: Set<String> = [
        "a", "an", "the", "of", "some", "about", "approximately", "approx", "fresh", "freshly", "large", "small", "medium",
        "finely", "coarsely", "roughly", "thinly", "chopped", "minced", "diced", "sliced", "grated", "shredded", "crushed",
        "peeled", "whole", "ripe", "good", "quality", "extra", "heaping", "level", "scant", "generous", "very", "cold",
        "warm", "hot", "softened", "melted", "beaten", "cooked", "uncooked", "raw", "boneless", "skinless", "halved",
        "quartered", "cubed", "trimmed", "rinsed", "drained", "packed", "sifted", "additional", "optional", "squeezed",
        "cored", "deveined", "pitted", "seeded", "washed", "heaped", "heaping", "generous", "rounded", "commercial",
        "store-bought", "unripe",
    ]

    /// What the page's measures leave before a name: "1 ea. chicken", "1 teaspoon or more of salt",
    /// "2 medium to large onions", "peeled and cored apples", "1 cup or 1 part cream", "1 pinch each of salt".
    private static let leftovers: Set<String> = ["ea.", "ea", "each", "or", "and", "to", "more", "plus", "+", "x", "part", "parts"]

    /// Adverbs that make a hyphenated word preparation: "freshly-ground", "finely-chopped".
    private static let preparationAdverbs: Set<String> = ["freshly", "finely", "coarsely", "roughly", "thinly", "lightly", "well"]

    /// What follows a comma is how to prepare it ("onions, sliced"), unless all before it was
    /// ("boneless, skinless chicken thighs"): the first part that names something.
    /// `measured`: an amount or unit came before, so a unit or size starting the name repeats or
    /// qualifies it ("1 can (8 oz) can chicken broth", "14 oz can of tomatoes").
    private static func name(from text: Substring, measured: Bool) -> String? {
        text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == ":" }).lazy
            .compactMap { name(ofPart: $0, measured: measured) }.first
    }

    private static func name(ofPart part: Substring, measured: Bool) -> String? {
        var core = String(part)
        for tail in [" to taste", " for ", " as needed", " or more", " (", " - "] {
            if let range = core.range(of: tail, options: .caseInsensitive) { core = String(core[..<range.lowerBound]) }
        }
        var words = core.lowercased().split(separator: " ").map(String.init)
        var afterAmount = measured
        while let first = words.first {
            if preparation.contains(first) || isPreparation(hyphenated: first) {
                words.removeFirst()
            } else if words.count > 1, leftovers.contains(first) {
                words.removeFirst()
            } else if words.count > 1, isAmount(first) {
                // "or 1 part heavy cream", "plus 1 small can tomatoes": the alternative's amount, and its unit.
                words.removeFirst()
                afterAmount = true
            } else if words.count > 1, afterAmount, MeasureUnit.named(first) != nil || containers.contains(first) || sizeWords.contains(first) {
                // "15 ounce can", "jar or can of", "2 inch cubes": a size and what holds it, before the name.
                words.removeFirst()
            } else {
                break
            }
        }
        let name = words.joined(separator: " ").trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
        guard !name.isEmpty, name.rangeOfCharacter(from: .letters) != nil else { return nil }
        return String(name.prefix(100))
    }

    private static func isAmount(_ word: String) -> Bool {
        var text = Substring(word)
        return leadingAmount(&text) != nil && text.isEmpty
    }

    private static func isPreparation(hyphenated word: String) -> Bool {
        guard let first = word.split(separator: "-").first, word.contains("-") else { return false }
        return preparationAdverbs.contains(String(first))
    }

    private static func removingParentheses(_ text: String) -> String {
        var depth = 0
        return String(text.filter { character in
            if character == "(" { depth += 1; return false }
            if character == ")" { depth = max(0, depth - 1); return false }
            return depth == 0
        })
    }

    static func collapseSpaces(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
