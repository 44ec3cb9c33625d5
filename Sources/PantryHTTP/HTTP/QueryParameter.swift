import Foundation
import Hummingbird

/// Strict reading of `?name=value` parameters: a value that is present but not of the documented
/// type or range is a 422, never silently replaced by a default.
enum QueryParameter {
    static func string(_ name: String, in request: Request, maxLength: Int = 256) throws -> String? {
        guard let value = try formValue(name, in: request.uri.query) else { return nil }
        guard !value.isEmpty, value.unicodeScalars.count <= maxLength else {
            throw Problem(.invalidQuery, detail: "'\(name)' must be 1-\(maxLength) characters")
        }
        return value
    }

    static func int(_ name: String, in request: Request, range: ClosedRange<Int>) throws -> Int? {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw Problem(.invalidQuery, detail: "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The first `name=value` of a query as forms and most HTTP clients write it (Python's
    /// requests, the web's URLSearchParams): `+` is a space and `%2B` a plus. Hummingbird's
    /// `queryParameters` keeps `+`, so `diet=gluten+free` was the unknown diet "gluten+free".
    static func formValue(_ name: String, in query: String?) throws -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            guard parts.count == 2 else { return "" }
            // Most values have nothing to decode: Foundation's replacing and percent-decoding cost
            // 5% of a search's API CPU.
            if !parts[1].utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) {
                return String(parts[1])
            }
            guard let value = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                throw Problem(.invalidQuery, detail: "'\(name)' is not valid percent-encoded UTF-8")
            }
            return value
        }
        return nil
    }
}
