import Foundation

/// Wiki text as a reader sees it. The Wikibooks file keeps the pages' markup: 130 recipes showed
/// `'''''not'''''`, `[[`, `{{` or a footnote's paragraph (Caesar salad's first ingredient) on screen.
enum WikiMarkup {
    /// Footnotes (`<ref>…</ref>`, `<ref name="x" />`), templates (`{{…}}`, nested, or cut off at the
    /// end of the text), comments and image leftovers (`thumb|339x`) go with their content; links keep
    /// their label (`[[Cookbook:Rice|rice]]` → "rice", `[https://… see how]` → "see how"); bold and
    /// italic quotes and list markers go; entities are decoded and other tags read as spaces.
    static func plainText(_ text: String) -> String {
        var result = text
        if result.contains("<") {
            // "onion<nowiki/>s" is one word.
            result = result.replacingOccurrences(of: "</?nowiki */?>", with: "", options: .regularExpression)
            result = result.replacingOccurrences(of: "<!--.*?(-->|$)", with: " ", options: .regularExpression)
            result = result.replacingOccurrences(of: "<ref[^>]*/>", with: " ", options: [.regularExpression, .caseInsensitive])
            result = result.replacingOccurrences(of: "<ref[^>]*>.*?(</ref>|$)", with: " ", options: [.regularExpression, .caseInsensitive])
        }
        if result.contains("{{") { result = withoutTemplates(result) }
        if result.contains("[") {
            result = result.replacingOccurrences(of: #"\[\[(?:[^\]|]*\|)*([^\]|]*)\]\]"#, with: "$1", options: .regularExpression)
            result = result.replacingOccurrences(of: #"\[https?://[^\s\]]+\s*([^\]]*)\]"#, with: "$1", options: .regularExpression)
            result = result.replacingOccurrences(of: "[[", with: " ").replacingOccurrences(of: "]]", with: " ")
        }
        if result.contains("thumb") {
            result = result.replacingOccurrences(of: #"\bthumb\|\d*x?\d*(px)?|^thumb(?=[A-Z])|(?<=[a-z.])thumb\b"#, with: " ",
                                                 options: .regularExpression)
        }
        if result.contains("''") { result = result.replacingOccurrences(of: "'{2,}", with: "", options: .regularExpression) }
        if result.contains("&") {
            for (entity, character) in entities { result = result.replacingOccurrences(of: entity, with: character) }
            if result.contains("&#") { result = withNumericEntities(result) }
        }
        if result.contains("<") { result = result.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression) }
        result = result.trimmingCharacters(in: .whitespacesAndNewlines)
        while let first = result.first, "*#:".contains(first) {
            result = String(result.dropFirst()).trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    /// `{{…}}` removed, counting nesting; an unclosed one runs to the end (the file cuts some off).
    private static func withoutTemplates(_ text: String) -> String {
        var output = ""
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("{{") {
                depth += 1
                index = text.index(index, offsetBy: 2)
            } else if depth > 0, rest.hasPrefix("}}") {
                depth -= 1
                index = text.index(index, offsetBy: 2)
                if depth == 0 { output.append(" ") }
            } else {
                if depth == 0 { output.append(text[index]) }
                index = text.index(after: index)
            }
        }
        return output
    }

    /// "&#189;" and "&#x2153;" as the characters they name ("½", "⅓").
    private static func withNumericEntities(_ text: String) -> String {
        var result = text
        let pattern = try! Regex(#"&#([xX]?)([0-9a-fA-F]{1,6});"#)
        for match in text.matches(of: pattern).reversed() {
            let hex = !(match.output[1].substring?.isEmpty ?? true)
            guard let digits = match.output[2].substring, let value = UInt32(digits, radix: hex ? 16 : 10),
                  let scalar = Unicode.Scalar(value), value >= 0x20 else { continue }
            let range = match.range
            // Offsets into `text` hold for `result`: replacements run from the end.
            let start = result.index(result.startIndex, offsetBy: text.distance(from: text.startIndex, to: range.lowerBound))
            let end = result.index(start, offsetBy: text.distance(from: range.lowerBound, to: range.upperBound))
            result.replaceSubrange(start..<end, with: String(Character(scalar)))
        }
        return result
    }

    private static let entities: [String: String] = [
        "&frac12;": "½", "&frac14;": "¼", "&frac34;": "¾", "&frac13;": "⅓", "&frac23;": "⅔", "&frac18;": "⅛",
        "&amp;": "&", "&nbsp;": " ", "&quot;": "\"", "&#39;": "'", "&apos;": "'", "&lt;": "<", "&gt;": ">",
        "&deg;": "°", "&ndash;": "–", "&mdash;": "—", "&times;": "×",
    ]
}
