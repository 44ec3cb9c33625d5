import Foundation

/// Limits that every request must respect before it may cost an upstream call.
extension FetchRequest {
    static let providerNames: Set<String> = ["spoonacular", "mealdb", "catalog"]

    /// The request with its text trimmed, lowercased where case carries no meaning and
    /// duplicates removed, or `.badRequest` saying what is wrong.
    package func validated() throws(FetchError) -> FetchRequest {
        switch self {
        case .byIngredients(let ingredients, let number):
            var seen: [String] = []
            for raw in ingredients {
                let name = try Self.text(raw, field: "ingredient", maxLength: 64).lowercased()
                guard !name.contains(",") else { throw .badRequest(message: "an ingredient must not contain a comma") }
                if !seen.contains(name) { seen.append(name) }
            }
            guard (1...5).contains(seen.count) else {
                throw .badRequest(message: "give 1 to 5 different ingredients, got \(seen.count)")
            }
            return .byIngredients(ingredients: seen, number: try Self.range(number, 1...100, field: "number"))
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            let query = try Self.text(query, field: "query", maxLength: 100)
            var normalizedDiet: String?
            if let diet {
                let lowered = diet.trimmingCharacters(in: .whitespaces).lowercased()
                guard Diet.vocabulary.contains(lowered) else {
                    throw .badRequest(message: "unknown diet \"\(diet)\"; use one of: \(Diet.vocabulary.joined(separator: ", "))")
                }
                normalizedDiet = lowered
            }
            if let maxReadyTime { _ = try Self.range(maxReadyTime, 1...1440, field: "maxReadyTime") }
            return .search(
                query: query, diet: normalizedDiet, maxReadyTime: maxReadyTime,
                offset: try Self.range(offset, 0...900, field: "offset"),
                number: try Self.range(number, 1...100, field: "number"))
        case .detail(let id):
            return .detail(id: try Self.recipeID(id))
        case .random(let count):
            return .random(count: try Self.range(count, 1...100, field: "count"))
        case .autocomplete(let prefix, let number):
            return .autocomplete(
                prefix: try Self.text(prefix, field: "prefix", maxLength: 64).lowercased(),
                number: try Self.range(number, 1...25, field: "number"))
        case .image(let url):
            guard url.utf8.count <= 2048, let components = URLComponents(string: url),
                  let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = components.host, !host.isEmpty
            else { throw .badRequest(message: "image url must be an absolute http(s) URL of at most 2048 bytes") }
            return .image(url: url)
        case .featured(let day):
            return .featured(day: try Self.day(day))
        case .liked(let ids, let day, let number):
            var seen: [String] = []
            for raw in ids {
                let id = try Self.recipeID(raw)
                if !seen.contains(id) { seen.append(id) }
            }
            guard (1...Self.maxLiked).contains(seen.count) else {
                throw .badRequest(message: "give 1 to \(Self.maxLiked) different recipe ids, got \(seen.count)")
            }
            return .liked(ids: seen, day: try Self.day(day), number: try Self.range(number, 1...100, field: "number"))
        case .feed(let seed, let offset, let count):
            return .feed(seed: seed, offset: try Self.range(offset, 0...100_000, field: "offset"),
                         count: try Self.range(count, 1...100, field: "count"))
        }
    }

    /// The most recipes a `liked` request ranks by: a user's newest favourites and cooking.
    package static let maxLiked = 50

    private static func day(_ day: String) throws(FetchError) -> String {
        guard day.count == 10, let date = utcDay.date(from: day), utcDay.string(from: date) == day else {
            throw .badRequest(message: "day must be a date as YYYY-MM-DD")
        }
        return day
    }

    /// Days as the featured recipe names them: YYYY-MM-DD in UTC.
    package static let utcDay: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    /// Splits "spoonacular:716429" into provider and provider-local id.
    package static func splitID(_ id: String) -> (provider: String, local: String)? {
        guard let colon = id.firstIndex(of: ":") else { return nil }
        return (String(id[..<colon]), String(id[id.index(after: colon)...]))
    }

    private static func recipeID(_ raw: String) throws(FetchError) -> String {
        let id = raw.trimmingCharacters(in: .whitespaces)
        guard let (provider, local) = splitID(id), providerNames.contains(provider) else {
            throw .badRequest(message: "recipe id must look like spoonacular:<number>, mealdb:<number> or catalog:<slug>")
        }
        let valid: Bool
        switch provider {
        case "catalog":
            valid = (1...80).contains(local.count) && local.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
        default:
            valid = (1...12).contains(local.count) && local.allSatisfy { $0.isASCII && $0.isNumber }
        }
        guard valid else { throw .badRequest(message: "invalid \(provider) recipe id \"\(local)\"") }
        return id
    }

    private static func text(_ raw: String, field: String, maxLength: Int) throws(FetchError) -> String {
        let words = raw.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        let text = words.joined(separator: " ")
        guard !text.isEmpty else { throw .badRequest(message: "\(field) must not be empty") }
        guard text.count <= maxLength else { throw .badRequest(message: "\(field) is longer than \(maxLength) characters") }
        // Unicode's control and format characters (Cc, Cf), by general category: Foundation's
        // `controlCharacters` on Linux also refused unassigned code points, which no schema can name.
        guard !text.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) else {
            throw .badRequest(message: "\(field) contains control characters")
        }
        return text
    }

    private static func range(_ value: Int, _ range: ClosedRange<Int>, field: String) throws(FetchError) -> Int {
        guard range.contains(value) else {
            throw .badRequest(message: "\(field) must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }
}
