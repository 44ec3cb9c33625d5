import Foundation
import Hummingbird
import PantryJSON

/// A JSON request body type: only its own fields are allowed, so a misspelt field is an error
/// rather than a silently ignored default.
protocol RequestDocument {
    static var fields: [String] { get }
    /// The fields the OpenAPI document lets be null; any other field sent as null is refused,
    /// as the document says, rather than read as absent.
    static var nullableFields: [String] { get }
    init(json: borrowing JSONObjectReader) throws
}

extension RequestDocument {
    static var nullableFields: [String] { [] }
}

enum JSONBody {
    static let maxBytes = 64 * 1024

    /// Reads at most `maxBytes` (413 beyond) and decodes strictly, in one pass: bad JSON is 400; a body that is
    /// not an object, has unknown, repeated or missing fields, or fields of the wrong type is 422.
    static func decode<T: RequestDocument>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: maxBytes)
        // No body at all is a missing body (400), not a body of the wrong type.
        if buffer.readableBytes > 0 { try requireJSON(request) }
        return try buffer.withUnsafeReadableBytes { try decode(type, from: $0) }
    }

    /// A body must say it is JSON. One declared as something else (`text/plain`, a form), or as
    /// nothing, is refused rather than read as JSON: those are the bodies another website can make
    /// a visitor's browser send without asking (a `no-cors` fetch of an untyped Blob created an
    /// account), while `application/json` from another origin needs CORS's consent first.
    /// Without Foundation: its trimming and lowercasing bridged through NSString and were 7% of
    /// the API's CPU per command.
    static func requireJSON(_ request: Request) throws {
        let declared = request.headers[values: .contentType]
        let media = declared.count == 1 ? mediaType(declared[0]) : ""
        guard media == "application/json" || media.hasSuffix("+json") else {
            throw Problem(.unsupportedMediaType,
                          detail: declared.isEmpty ? "the body must be sent as application/json (Content-Type)"
                              : "the body must be application/json, not \(declared.joined(separator: ", ").prefix(64))")
        }
    }

    /// `type/subtype` of a Content-Type value, lowercased, without parameters or blanks.
    static func mediaType(_ value: String) -> String {
        value[..<(value.utf8.firstIndex(of: UInt8(ascii: ";")) ?? value.endIndex)].trimmingBlanks.lowercased()
    }

    /// `JSONObjectReader` rather than `JSONDecoder`, whose fixed cost per document (its tree, its
    /// containers, its key paths and generic metadata) was a fifth of the API's CPU per command.
    static func decode<T: RequestDocument>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        guard !bytes.isEmpty else { throw Problem.malformedJSON("the request needs a JSON body") }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw Problem.malformedJSON("the body is not UTF-8 text") }
        do {
            return try JSONObjectReader.read(bytes) { json in
                if let unknown = json.names.filter({ !T.fields.contains($0) }).sorted().first {
                    throw Problem.invalidField("unknown field '\(unknown.prefix(64))'")
                }
                if let null = T.fields.first(where: { json.isNull($0) && !T.nullableFields.contains($0) }) {
                    throw Problem.invalidField("'\(null)' may be left out but not null")
                }
                return try T(json: json)
            }
        } catch JSONReadError.malformed {
            // Valid JSON of another shape (an array, a number) is a wrong value, not broken JSON.
            if (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil {
                throw Problem.invalidField("the body must be a JSON object")
            }
            throw Problem.malformedJSON("the body is not valid JSON")
        } catch let error as JSONReadError {
            switch error {
            case .duplicateField(let name): throw Problem.invalidField("the field '\(name.prefix(64))' appears twice")
            case .missingField(let name): throw Problem.invalidField("missing field '\(name.prefix(64))'")
            case .wrongType(let name, let expected): throw Problem.invalidField("'\(name.prefix(64))' must be \(expected)")
            case .invalidUTF8, .malformed: throw Problem.malformedJSON("the body is not valid JSON")
            }
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
}
