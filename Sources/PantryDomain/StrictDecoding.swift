/// A payload whose JSON may hold only its own fields: an unknown field is an error, not a
/// silent no-op, so a misspelt `delat` never turns into a default.
protocol StrictlyDecodable: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable & RawRepresentable<String>
}

struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

struct Strict<Value: StrictlyDecodable>: Decodable {
    var value: Value

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let unknown = container.allKeys.lazy.map(\.stringValue).filter { Value.CodingKeys(rawValue: $0) == nil }
        if let first = unknown.min() {
            throw DecodingError.dataCorruptedError(
                forKey: AnyCodingKey(first), in: container, debugDescription: "unknown field '\(first)'")
        }
        value = try Value(from: decoder)
    }
}
