import Hummingbird

/// Strict reading of `?name=value` parameters: a value that is present but not of the documented
/// type or range is a 422, never silently replaced by a default.
enum QueryParameter {
    static func string(_ name: String, in request: Request, maxLength: Int = 256) throws -> String? {
        guard let value = request.uri.queryParameters.get(name) else { return nil }
        guard !value.isEmpty, value.unicodeScalars.count <= maxLength else {
            throw Problem(.unprocessableContent, code: "invalid_query", detail: "'\(name)' must be 1-\(maxLength) characters")
        }
        return value
    }

    static func int(_ name: String, in request: Request, range: ClosedRange<Int>) throws -> Int? {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw Problem(.unprocessableContent, code: "invalid_query",
                          detail: "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
