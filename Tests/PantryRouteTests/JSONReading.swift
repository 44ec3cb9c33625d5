import Foundation
import HummingbirdTesting
import Testing

extension Answer {
    /// The JSON object of an answer that must have `status`.
    func ok(_ status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(self.status == status, "\(self)", sourceLocation: sourceLocation)
        return json
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The object at `key`, nil when it is absent or not an object.
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    /// The array of objects at `key`, nil when it is absent or not one.
    func objects(_ key: String) -> [[String: Any]]? { self[key] as? [[String: Any]] }
    /// The number at `key` as a `Double` (JSON does not tell 5 from 5.0).
    func number(_ key: String) -> Double? { (self[key] as? NSNumber)?.doubleValue }
}

/// The `key` of each object, `id` by default: nil when the objects are absent.
func values(_ objects: [[String: Any]]?, _ key: String = "id") -> [String]? {
    objects?.map { $0[key] as? String ?? "" }
}

extension TestClientProtocol {
    /// A real recipe of the deployment (the offline catalog) that has `ingredient`.
    func catalogRecipe(_ ingredient: String = "egg") async throws -> [String: Any] {
        let found = try await get("/v1/recipes/by-ingredients?ingredients=\(ingredient)&number=1").ok()
        let id = try #require(values(found.object("payload")?.objects("summaries"))?.first)
        return try #require(try await get("/v1/recipes/\(id)").ok().object("payload")?.object("recipe"))
    }
}
/// A JSON value in one spelling (sorted keys), to compare two answers' documents.
func canonical(_ value: Any) throws -> Data {
    try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
}

/// A grocery item's amounts as "amount unit" ("amount" alone when it has no unit field), the
/// amount as a `Double` (JSON does not tell 5 from 5.0); any other field is named after them.
func amounts(_ value: Any?) -> [String]? {
    (value as? [[String: Any]])?.map { entry in
        let unit = entry["unit"].map { " \($0 as? String ?? "\($0)")" } ?? ""
        let others = entry.keys.filter { $0 != "amount" && $0 != "unit" }.sorted()
        return "\(entry.number("amount") ?? .nan)\(unit)" + (others.isEmpty ? "" : " +\(others)")
    }
}
