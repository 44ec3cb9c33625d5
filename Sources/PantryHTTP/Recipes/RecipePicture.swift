import Foundation
import PantryDomain

/// A picture for a recipe that has none (the offline catalog has no photographs), so every card has
/// an image offline: the dish's main ingredients, each with a dot of its colour, over colours taken
/// from them. Not the title: issue 33 found the card repeating the title printed beside it. With no
/// main ingredient, a plate. The title is only the accessible name. Text from outside is
/// XML-escaped; the route also forbids scripts.
enum RecipePicture {
    static func svg(title: String, ingredients: [String]) -> String {
        let main = mainIngredients(ingredients)
        let colours = (main.isEmpty ? Array(ingredients.prefix(2)) : main).map(colour)
        let background = colours.first ?? colour("")
        let accent = colours.dropFirst().first ?? background
        var drawing = ""
        if main.isEmpty {
            drawing = ##"<circle cx="240" cy="180" r="110" fill="#fff" fill-opacity="0.85"/>"##
                + ##"<circle cx="240" cy="180" r="70" fill="none" stroke="#222" stroke-opacity="0.25" stroke-width="6"/>"##
                + ##"<path d="M92 90v70M80 90v40a12 12 0 0 0 24 0V90M92 160v110M388 90c-16 20-16 60 0 80v100" "##
                + ##"fill="none" stroke="#fff" stroke-width="10" stroke-linecap="round"/>"##
        } else {
            let top = 180 - main.count * 40
            drawing = ##"<rect x="32" y="\##(top - 16)" width="416" height="\##(main.count * 80 + 32)" rx="16" fill="#fff" fill-opacity="0.88"/>"##
            for (index, name) in main.enumerated() {
                let middle = top + 40 + index * 80
                drawing += ##"<circle cx="80" cy="\##(middle)" r="20" fill="\##(colours[index])" stroke="#222" stroke-opacity="0.3" stroke-width="2"/>"##
                drawing += ##"<text x="116" y="\##(middle + 12)">\##(escape(shortened(name, to: 18)))</text>"##
            }
            drawing = ##"<g font-family="sans-serif" font-size="30" font-weight="bold" fill="#222">"## + drawing + "</g>"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="480" height="360" viewBox="0 0 480 360" role="img" \
            aria-label="\(escape(title))"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">\
            <stop offset="0" stop-color="\(background)"/><stop offset="1" stop-color="\(accent)"/></linearGradient></defs>\
            <rect width="480" height="360" fill="url(#g)"/>\(drawing)</svg>
            """
    }

    /// The first three ingredients that are not what every kitchen has (salt, pepper, water, oil),
    /// each named once: in a recipe's list the dish's own come first.
    static func mainIngredients(_ ingredients: [String]) -> [String] {
        var seen: Set<String> = []
        var main: [String] = []
        for name in ingredients where main.count < 3 && !IngredientName.isPantryStaple(name) {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, seen.insert(IngredientName.key(trimmed)).inserted else { continue }
            main.append(trimmed)
        }
        return main
    }

    /// Colours of what an ingredient mostly looks like; others get a stable hue from their name.
    private static let palette: [(words: [String], colour: String)] = [
        (["tomato", "pepper", "chili", "chile", "paprika", "strawberry", "raspberry", "cherry", "beet"], "#d6452f"),
        (["basil", "spinach", "parsley", "cilantro", "kale", "lettuce", "herb", "mint", "pea", "bean", "zucchini",
          "cucumber", "lime", "avocado", "broccoli", "leek", "celery"], "#4f9a3a"),
        (["egg", "lemon", "butter", "corn", "cheese", "banana", "mustard", "turmeric", "saffron"], "#f2c230"),
        (["chocolate", "cocoa", "coffee", "beef", "mushroom", "cinnamon", "soy", "lentil"], "#7a4a2a"),
        (["flour", "rice", "sugar", "milk", "cream", "yogurt", "onion", "garlic", "potato", "pasta", "noodle", "bread",
          "oat", "coconut", "tofu"], "#efe3c8"),
        (["carrot", "pumpkin", "orange", "squash", "sweet potato", "apricot", "peach", "salmon", "mango"], "#f08a24"),
        (["blueberry", "berry", "eggplant", "plum", "grape", "cabbage", "wine"], "#6a3f8f"),
        (["chicken", "pork", "fish", "shrimp", "prawn", "turkey", "ham"], "#f2b8a0"),
        (["oil", "honey", "syrup", "vinegar", "stock", "broth"], "#c9a227"),
    ]

    static func colour(_ ingredient: String) -> String {
        let words = IngredientName.words(ingredient)
        for (keys, colour) in palette where keys.contains(where: { IngredientName.contains(words, IngredientName.words($0)) }) {
            return colour
        }
        let hue = Int(StableHash.of(ingredient.utf8) % 360)
        return "hsl(\(hue), 55%, 55%)"
    }

    /// A name cut at a word when it is longer than `limit` characters ("boneless skinless chicken…").
    private static func shortened(_ name: String, to limit: Int) -> String {
        guard name.count > limit else { return name }
        let cut = name.prefix(limit)
        let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return atWord.trimmingCharacters(in: .whitespaces) + "…"
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default:
                // Control characters are not allowed in XML 1.0 at all.
                if character.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\t" }) { escaped.append(character) }
            }
        }
        return escaped
    }
}
