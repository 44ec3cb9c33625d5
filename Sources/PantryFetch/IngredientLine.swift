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
        let amount = leadingAmount(&rest)
        var unit: String?
        if amount != nil {
            rest = rest.drop { $0 == "-" || $0 == " " }
            unit = leadingUnit(&rest)
        }
        return Ingredient(name: name(from: rest) ?? String(original.lowercased().prefix(100)), amount: amount, unit: unit, original: original)
    }

    /// "1", "1.5", "3/4", "½", "1 ½", "1½"; a range ("4–5", "2 to 3") counts as its first number.
    static func leadingAmount(_ text: inout Substring) -> Double? {
        var amount: Double?
        while let (value, remainder) = number(text) {
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

    private static func number(_ text: Substring) -> (Double, Substring)? {
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
                     "fillet", "strip", "tin", "carton", "loaf", "ear", "knob", "rasher", "scoop"]
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

    /// A measure ("cups", "fl oz", "Tbsp.") or count unit ("cloves") at the start of `text`.
    private static func leadingUnit(_ text: inout Substring) -> String? {
        let words = text.split(separator: " ", maxSplits: 2)
        for count in [2, 1] where words.count >= count {
            let phrase = words.prefix(count).joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: ",;:"))
            if let unit = MeasureUnit.named(phrase) {
                text = text.dropFirst(words.prefix(count).joined(separator: " ").count).drop { $0 == " " }
                return unit.symbol
            }
            if count == 1, let unit = countUnits[phrase.lowercased()] {
                text = text.dropFirst(words[0].count).drop { $0 == " " }
                return unit
            }
        }
        return nil
    }

    /// Words that say how an ingredient is prepared or chosen, not what it is.
    private static let preparation: Set<String> = [
        "a", "an", "the", "of", "some", "about", "approximately", "approx", "fresh", "freshly", "large", "small", "medium",
        "finely", "coarsely", "roughly", "thinly", "chopped", "minced", "diced", "sliced", "grated", "shredded", "crushed",
        "peeled", "whole", "ripe", "good", "quality", "extra", "heaping", "level", "scant", "generous", "very", "cold",
        "warm", "hot", "softened", "melted", "beaten", "cooked", "uncooked", "raw", "boneless", "skinless", "halved",
        "quartered", "cubed", "trimmed", "rinsed", "drained", "packed", "sifted", "additional", "optional", "squeezed",
    ]

    /// What follows a comma is how to prepare it ("onions, sliced"), unless all before it was
    /// ("boneless, skinless chicken thighs"): the first part that names something.
    private static func name(from text: Substring) -> String? {
        text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == ":" }).lazy.compactMap(name(ofPart:)).first
    }

    private static func name(ofPart part: Substring) -> String? {
        var core = String(part)
        for tail in [" to taste", " for ", " as needed", " or more", " (", " - "] {
            if let range = core.range(of: tail, options: .caseInsensitive) { core = String(core[..<range.lowerBound]) }
        }
        var words = core.lowercased().split(separator: " ").map(String.init)
        while let first = words.first, preparation.contains(first) { words.removeFirst() }
        let name = words.joined(separator: " ").trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
        guard !name.isEmpty, name.rangeOfCharacter(from: .letters) != nil else { return nil }
        return String(name.prefix(100))
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
