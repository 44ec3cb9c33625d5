import Foundation
import Hummingbird
import PantryDomain
import PantryJSON

/// An RFC 9457 problem document (`application/problem+json`). Every error the API answers has
/// this shape, so clients switch on `code` whatever went wrong.
package struct Problem: HTTPResponseError, Sendable {
    package static let typePrefix = "https://pantry.example/problems/"

    package var status: HTTPResponse.Status
    package var code: String
    package var detail: String
    package var headers: HTTPFields

    package init(_ status: HTTPResponse.Status, code: String, detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }

    /// The same for every problem of one code, as RFC 9457 asks of `title`.
    package var title: String {
        let words = String(code.map { $0 == "_" ? " " : $0 })
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// Written directly, in the key order a sorted `JSONEncoder` gave: an encoder per problem cost
    /// a sixth of the API's CPU for a request it refuses, and a flood is answered with refusals.
    package var document: Data {
        var json = JSONObjectWriter()
        json.field("code", code)
        json.field("detail", detail)
        json.field("status", status.code)
        json.field("title", title)
        json.field("type", Self.typePrefix + code)
        return Data(json.finish())
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    package var response: Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
    }
}

extension Problem {
    /// The core's refusal of a command, with the status a client expects for its code.
    package init(_ rejection: Rejection) {
        self.init(Self.status(for: rejection.code), code: rejection.code.rawValue, detail: rejection.message)
    }

    package static func status(for code: Rejection.Code) -> HTTPResponse.Status {
        switch code {
        case .malformedJSON, .invalidUTF8:
            .badRequest
        case .tooLarge:
            .contentTooLarge
        // The API builds every command itself, so the core not knowing one is a bug here.
        case .unknownCommand:
            .internalServerError
        case .unknownUser, .noSuchItem, .notSaved, .unknownRecipe, .notInCart:
            .notFound
        case .userExists, .usernameTaken, .emailTaken, .alreadySaved, .unchanged, .alreadyUsed, .cartOutOfRange, .limitReached:
            .conflict
        case .invalidField, .invalidCommandId, .invalidUserId, .invalidUsername, .invalidEmail, .invalidPasswordHash,
             .invalidRecipeId, .invalidTitle, .invalidImageURL, .invalidIngredient, .invalidAmount, .invalidUnit,
             .invalidDelta, .invalidText, .notInRecipe, .commandIdReused, .invalidMinutes:
            .unprocessableContent
        }
    }

    /// Any error a handler or Hummingbird throws, as a problem. Unexpected errors keep their
    /// details out of the answer (they are logged by the caller).
    package static func from(_ error: any Error) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case is PasswordHashingPool.Busy:
            return Problem(.serviceUnavailable, code: "busy", detail: "too many password checks are waiting; retry shortly",
                           headers: [.retryAfter: "1"])
        case let error as HTTPError:
            return Problem(error.status, code: code(for: error.status), detail: error.body ?? error.status.reasonPhrase,
                           headers: error.headers)
        case let error as any HTTPResponseError:
            return Problem(error.status, code: code(for: error.status), detail: error.status.reasonPhrase)
        default:
            return Problem(.internalServerError, code: "internal_error", detail: "the server could not answer this request")
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status {
        case .badRequest: "bad_request"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .contentTooLarge: Rejection.Code.tooLarge.rawValue
        case .unsupportedMediaType: "unsupported_media_type"
        default: status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
        }
    }

    // The problems the API raises itself, beside the core's rejections.
    static func malformedJSON(_ detail: String) -> Problem {
        Problem(.badRequest, code: Rejection.Code.malformedJSON.rawValue, detail: detail)
    }

    static func invalidField(_ detail: String) -> Problem {
        Problem(.unprocessableContent, code: Rejection.Code.invalidField.rawValue, detail: detail)
    }

    static let invalidCredentials = Problem(
        .unauthorized, code: "invalid_credentials", detail: "the username or password is wrong")

    static func invalidToken(_ detail: String) -> Problem {
        Problem(.unauthorized, code: "invalid_token", detail: detail, headers: [.wwwAuthenticate: "Bearer"])
    }

    static func coreUnavailable(_ detail: String) -> Problem {
        Problem(.serviceUnavailable, code: "core_unavailable", detail: detail, headers: [.retryAfter: "1"])
    }
}
