import Foundation

/// Field rules shared by every command. Each returns the cleaned value or throws a `Rejection`.
package enum Validate {
    package static let maxRecipeIdLength = 128
    package static let maxTitleLength = 300
    package static let maxIngredientLength = 100
    package static let maxUnitLength = 32
    package static let maxURLLength = 2048
    package static let maxExperienceLength = 2000
    package static let maxCommandIdLength = 128
    package static let maxAmount = 1_000_000.0

    /// Trimmed, non-empty, at most `max` Unicode scalars (as JSON Schema's `maxLength` counts: a
    /// title of 300 letters took 20,000 combining marks when graphemes were counted), no control
    /// characters (but line breaks and tabs where `multiline`), and none of the invisible or
    /// bidirectional controls that make public text lie about what it says. Controls are looked
    /// for before trimming, as the contract's patterns do: "kg\n" is refused, not read as "kg".
    static func text(_ raw: String, max: Int, code: Rejection.Code, field: String, multiline: Bool = false) throws(Rejection) -> String {
        if let value = trimmedPrintableASCII(raw) {
            guard !value.isEmpty else { throw Rejection(code, "\(field) must not be empty") }
            guard value.utf8.count <= max else { throw Rejection(code, "\(field) must be at most \(max) characters") }
            return value
        }
        try refuseControls(in: raw, multiline: multiline, code: code, field: field)
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else { throw Rejection(code, "\(field) must not be empty") }
        guard value.unicodeScalars.count <= max else { throw Rejection(code, "\(field) must be at most \(max) characters") }
        return value
    }

    private static func refuseControls(in raw: String, multiline: Bool = false, code: Rejection.Code, field: String) throws(Rejection) {
        let allowed: Set<Unicode.Scalar> = multiline ? ["\n", "\r", "\t"] : []
        guard !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) else {
            throw Rejection(code, "\(field) must not contain control characters")
        }
        guard !raw.unicodeScalars.contains(where: isInvisibleControl) else {
            throw Rejection(code, "\(field) must not contain invisible or bidirectional control characters")
        }
    }

    /// What the single-line rules can take of text from elsewhere (an upstream recipe's title or
    /// ingredient): every control or invisible character a space, the ends trimmed.
    package static func singleLine(_ raw: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            kept.append(scalar.properties.generalCategory == .control || isInvisibleControl(scalar) ? " " : scalar)
        }
        return String(kept).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    package static func commandId(_ raw: String) throws(Rejection) -> CommandID {
        guard !raw.isEmpty, raw.count <= maxCommandIdLength,
              raw.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw Rejection(.invalidCommandId, "commandId must be 1-\(maxCommandIdLength) printable ASCII characters")
        }
        return raw
    }

    package static func userId(_ raw: String) throws(Rejection) -> UserID {
        guard (1...64).contains(raw.utf8.count), raw.unicodeScalars.allSatisfy(isIdentifierScalar) else {
            throw Rejection(.invalidUserId, "userId must be 1-64 characters of letters, digits, '_' or '-'")
        }
        return raw
    }

    package static func username(_ raw: String) throws(Rejection) -> String {
        try Username.validate(raw)
    }

    /// Deliberately simple: one '@', a non-empty local part, a dotted domain, no spaces.
    package static func email(_ raw: String) throws(Rejection) -> String {
        let value = raw.trimmingCharacters(in: .whitespaces)
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        let wellFormed = value.utf8.count <= 254
            && parts.count == 2
            && (1...64).contains(parts[0].utf8.count)
            && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !parts[1].contains("..")
            && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
        guard wellFormed else { throw Rejection(.invalidEmail, "email must look like name@example.org") }
        return value
    }

    /// The log must never hold a password: only a PHC-style hash string is accepted.
    package static func passwordHash(_ raw: String) throws(Rejection) -> String {
        guard raw.hasPrefix("$"), (20...512).contains(raw.utf8.count),
              raw.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw Rejection(.invalidPasswordHash, "passwordHash must be a PHC hash string such as $scrypt$...")
        }
        return raw
    }

    package static func recipeId(_ raw: RecipeID) throws(Rejection) -> RecipeID {
        RecipeID(try text(raw.rawValue, max: maxRecipeIdLength, code: .invalidRecipeId, field: "recipeId"))
    }

    package static func title(_ raw: String) throws(Rejection) -> String {
        try text(raw, max: maxTitleLength, code: .invalidTitle, field: "title")
    }

    package static func ingredient(_ raw: String) throws(Rejection) -> String {
        try text(raw, max: maxIngredientLength, code: .invalidIngredient, field: "ingredient")
    }

    /// Image URLs end up in other people's apps, so only absolute http(s) URLs with a host pass.
    package static func imageURL(_ raw: String?) throws(Rejection) -> String? {
        guard let raw else { return nil }
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard value.count <= maxURLLength,
              let url = URL(string: value),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw Rejection(.invalidImageURL, "image must be an absolute http(s) URL of at most \(maxURLLength) characters")
        }
        return value
    }

    /// The facts the adapter looked up for a recipe: a title, an optional image, 1-200 ingredients.
    package static func recipeFacts(_ raw: RecipeFacts) throws(Rejection) -> RecipeFacts {
        guard (1...RecipeFacts.maxIngredients).contains(raw.ingredients.count) else {
            throw Rejection(.invalidField, "a recipe must have 1-\(RecipeFacts.maxIngredients) ingredients")
        }
        var ingredients: [String] = []
        for name in raw.ingredients { ingredients.append(try ingredient(name)) }
        return RecipeFacts(title: try title(raw.title), image: try imageURL(raw.image), ingredients: ingredients)
    }

    package static func amount(_ raw: Double?) throws(Rejection) -> Double? {
        guard let raw else { return nil }
        guard raw.isFinite, raw >= 0, raw <= maxAmount else {
            throw Rejection(.invalidAmount, "amount must be a number from 0 to \(Int(maxAmount))")
        }
        return raw
    }

    package static func unit(_ raw: String?) throws(Rejection) -> String? {
        guard let raw else { return nil }
        try refuseControls(in: raw, code: .invalidUnit, field: "unit")
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if value.isEmpty { return nil }
        return try text(value, max: maxUnitLength, code: .invalidUnit, field: "unit")
    }

    package static func experienceText(_ raw: String) throws(Rejection) -> String {
        try text(raw, max: maxExperienceLength, code: .invalidText, field: "text", multiline: true)
    }

    /// The common case, printable ASCII, trimmed without Foundation: this runs for every field of
    /// every command on the single writer thread. Nil when the slow, Unicode-aware path is needed.
    static func trimmedPrintableASCII(_ raw: String) -> String? {
        let bytes = raw.utf8
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        guard let first = bytes.firstIndex(where: { $0 != 0x20 }),
              let last = bytes.lastIndex(where: { $0 != 0x20 }) else { return "" }
        if first == bytes.startIndex && last == bytes.index(before: bytes.endIndex) { return raw }
        return String(raw[first...last])
    }

    /// Bidirectional overrides, embeddings and isolates, and zero-width characters other than the
    /// joiners emoji and some scripts need (U+200C, U+200D).
    static func isInvisibleControl(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0x061C, 0xFEFF, 0x180E: true
        default: false
        }
    }

    static func isIdentifierScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
        default: false
        }
    }
}

/// The comparison key of an ingredient: case- and whitespace-insensitive.
package func normalizedIngredient(_ name: String) -> String {
    let bytes = name.utf8
    var previous: UInt8 = 0x20
    let alreadyNormal = bytes.allSatisfy { byte in
        defer { previous = byte }
        return byte > 0x20 && byte < 0x7F && !(0x41...0x5A).contains(byte) || (byte == 0x20 && previous != 0x20)
    } && bytes.last != 0x20
    if alreadyNormal { return name }
    return name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
}
