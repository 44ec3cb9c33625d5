import Foundation
import Hummingbird

enum PathParameter {
    /// A percent-decoded path segment; Hummingbird hands them over still encoded.
    static func value(_ name: String, in context: APIRequestContext) throws -> String {
        guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding else {
            throw Problem(.badRequest, code: "invalid_path", detail: "the path parameter '\(name)' is not valid percent-encoded UTF-8")
        }
        return value
    }
}
