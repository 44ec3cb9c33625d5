import PantryDomain

/// A picture for a recipe that has none (the offline catalog has no photographs): an SVG card with
/// the dish's name over colours taken from its first ingredients, so every card has an image offline.
/// The title is the only text from outside and is XML-escaped; the route also forbids scripts.
enum RecipePicture {
    static func svg(title: String, ingredients: [String]) -> String {
        let colours = ingredients.prefix(6).map(colour)
        let background = colours.first ?? colour("")
        let accent = colours.dropFirst().first ?? background
        var circles = ""
        for (index, fill) in colours.enumerated() {
            let x = 60 + index * 72
            circles += ##"<circle cx="\##(x)" cy="290" r="30" fill="\##(fill)" stroke="#fff" stroke-width="4"/>"##
        }
        let lines = wrap(title, width: 22, maxLines: 3)
        var text = ""
        for (index, line) in lines.enumerated() {
            let y = 150 - (lines.count - 1) * 22 + index * 44
            text += #"<text x="240" y="\#(y)" text-anchor="middle">\#(escape(line))</text>"#
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="480" height="360" viewBox="0 0 480 360" role="img" \
            aria-label="\(escape(title))"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">\
            <stop offset="0" stop-color="\(background)"/><stop offset="1" stop-color="\(accent)"/></linearGradient></defs>\
            <rect width="480" height="360" fill="url(#g)"/><rect x="24" y="60" width="432" height="170" rx="16" \
            fill="#fff" fill-opacity="0.85"/><g font-family="sans-serif" font-size="36" font-weight="bold" \
            fill="#222">\(text)</g>\(circles)</svg>
            """
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

    private static func wrap(_ title: String, width: Int, maxLines: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in title.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        if lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            lines[maxLines - 1] += "…"
        }
        return lines.map { $0.count > width + 8 ? String($0.prefix(width + 7)) + "…" : $0 }
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
