import Foundation
import Hummingbird
import PantryJSON

/// A JSON request body type: only its own fields are allowed, so a misspelt field is an error
/// rather than a silently ignored default.
protocol RequestDocument: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable & RawRepresentable<String>
}

enum JSONBody {
    static let maxBytes = 64 * 1024

    /// Reads at most `maxBytes` (413 beyond) and decodes strictly, in one pass: bad JSON is 400; a body that is
    /// not an object, has unknown or missing fields, or fields of the wrong type is 422.
    static func decode<T: RequestDocument>(_ type: T.Type, from request: Request) async throws -> T {
        try requireJSON(request)
        return try decode(type, from: Data(buffer: try await request.body.collect(upTo: maxBytes)))
    }

    /// A body declared as something else (`text/plain`, a form) is refused rather than read as
    /// JSON; a request that declares nothing is read as JSON.
    static func requireJSON(_ request: Request) throws {
        guard let declared = request.headers[.contentType] else { return }
        let media = declared.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard media == "application/json" || media.hasSuffix("+json") else {
            throw Problem(.unsupportedMediaType, code: "unsupported_media_type",
                          detail: "the body must be application/json, not \(media.prefix(64))")
        }
    }

    private static func decode<T: RequestDocument>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else { throw Problem.malformedJSON("the request needs a JSON body") }
        guard String(validating: data, as: UTF8.self) != nil else { throw Problem.malformedJSON("the body is not UTF-8 text") }
        // Foundation's decoder keeps the last of two fields of one name; RFC 8259 leaves it open,
        // so a body that says two things is refused, as the core refuses such a command.
        do {
            try data.withUnsafeBytes { try JSONObjectReader.read($0) { _ in } }
        } catch JSONReadError.duplicateField(let name) {
            throw Problem.invalidField("the field '\(name.prefix(64))' appears twice")
        } catch {
            // Anything else that is wrong is said below, in the decoder's terms.
        }
        do {
            return try JSONDecoder().decode(Strict<T>.self, from: data).value
        } catch let error as UnknownField {
            throw Problem.invalidField("unknown field '\(error.name.prefix(64))'")
        } catch let error as DecodingError {
            throw problem(error, body: data)
        }
    }

    /// For routes that take no body: an empty body, or an empty JSON object, is all there may be.
    static func refuseFields(in request: Request) async throws {
        let buffer = try await request.body.collect(upTo: maxBytes)
        guard buffer.readableBytes > 0 else { return }
        try requireJSON(request)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any] else {
            throw Problem.malformedJSON("this request takes no body, or an empty JSON object")
        }
        if let field = object.keys.sorted().first { throw Problem.invalidField("unknown field '\(field.prefix(64))'") }
    }

    /// Decodes `T` after checking, in the same pass over the parsed body, that the object has no
    /// field `T` does not know.
    private struct Strict<Document: RequestDocument>: Decodable {
        var value: Document

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            let known = Set(Document.CodingKeys.allCases.map(\.rawValue))
            if let unknown = fields.filter({ !known.contains($0) }).sorted().first { throw UnknownField(name: unknown) }
            value = try Document(from: decoder)
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct UnknownField: Error {
        var name: String
    }

    /// Foundation's decoder reports bad syntax and a number that does not fit its field the same
    /// way ("not valid JSON", at the top): only then is the body parsed again, to tell them apart.
    private static func problem(_ error: DecodingError, body: Data) -> Problem {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            if (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) == nil {
                Problem.malformedJSON("the body is not valid JSON")
            } else {
                Problem.invalidField("a field has a value of the wrong type or out of range")
            }
        case .typeMismatch(_, let context) where context.codingPath.isEmpty,
             .valueNotFound(_, let context) where context.codingPath.isEmpty:
            Problem.invalidField("the body must be a JSON object")
        default:
            Problem.invalidField(describe(error))
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
