import Foundation
import Hummingbird

/// A JSON request body type: only its own fields are allowed, so a misspelt field is an error
/// rather than a silently ignored default.
protocol RequestDocument: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable & RawRepresentable<String>
}

enum JSONBody {
    static let maxBytes = 64 * 1024

    /// Reads at most `maxBytes` (413 beyond) and decodes strictly: bad JSON is 400; a body that is
    /// not an object, has unknown or missing fields, or fields of the wrong type is 422.
    static func decode<T: RequestDocument>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: maxBytes)
        let data = Data(buffer: buffer)
        guard !data.isEmpty else { throw Problem.malformedJSON("the request needs a JSON body") }
        guard String(validating: data, as: UTF8.self) != nil else { throw Problem.malformedJSON("the body is not UTF-8 text") }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw Problem.malformedJSON("the body is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw Problem.invalidField("the body must be a JSON object") }
        let known = Set(T.CodingKeys.allCases.map(\.rawValue))
        if let unknown = object.keys.filter({ !known.contains($0) }).sorted().first {
            throw Problem.invalidField("unknown field '\(unknown.prefix(64))'")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw Problem.invalidField(describe(error))
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(field(context.codingPath + [key]))'"
        case .typeMismatch(_, let context): return "'\(field(context.codingPath))' has the wrong type"
        case .valueNotFound(_, let context): return "'\(field(context.codingPath))' must not be null"
        case .dataCorrupted(let context): return "'\(field(context.codingPath))' is invalid"
        @unknown default: return "the body does not match the expected shape"
        }
    }
}
