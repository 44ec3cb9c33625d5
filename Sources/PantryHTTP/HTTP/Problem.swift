import Foundation
import Hummingbird
import PantryDomain
import PantryJSON

/// An RFC 9457 problem document (`application/problem+json`). Every error the API answers has
/// this shape, so clients switch on `code` whatever went wrong.
package struct Problem: HTTPResponseError, Sendable {
    package static let typePrefix = "https://pantry.example/problems/"

    /// A problem's `code`: one of the core's rejections, or one of the API's own.
    package enum Code: Hashable, Sendable, CustomStringConvertible {
        case rejection(Rejection.Code)
        case api(ProblemCode)

        package var rawValue: String {
            switch self {
            case .rejection(let code): code.rawValue
            case .api(let code): code.rawValue
            }
        }

        package var status: HTTPResponse.Status {
            switch self {
            case .rejection(let code): Problem.status(for: code)
            case .api(let code): code.status
            }
        }

        package var description: String { rawValue }
    }

    package var status: HTTPResponse.Status
    package var code: Code
    package var detail: String
    package var headers: HTTPFields

    /// A problem with its code's status.
    package init(_ code: ProblemCode, detail: String, headers: HTTPFields = [:]) {
        self.init(status: code.status, code: .api(code), detail: detail, headers: headers)
    }

    private init(status: HTTPResponse.Status, code: Code, detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }

    /// The same for every problem of one code, as RFC 9457 asks of `title`.
    package var title: String {
        let words = String(code.rawValue.map { $0 == "_" ? " " : $0 })
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// Written directly, in the key order a sorted `JSONEncoder` gave: an encoder per problem cost
    /// a sixth of the API's CPU for a request it refuses, and a flood is answered with refusals.
    package var document: Data {
        var json = JSONObjectWriter()
        json.field("code", code.rawValue)
        json.field("detail", detail)
        json.field("status", status.code)
        json.field("title", title)
        json.field("type", Self.typePrefix + code.rawValue)
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
        self.init(status: Self.status(for: rejection.code), code: .rejection(rejection.code), detail: rejection.message)
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
        case .unknownUser, .noSuchItem, .notSaved, .unknownRecipe, .notInHousehold, .notHouseholdMember, .noSuchInvite,
             .resetTokenInvalid:
            .notFound
        case .userExists, .usernameTaken, .emailTaken, .alreadySaved, .unchanged, .alreadyUsed, .cartOutOfRange, .limitReached,
             .notCooking, .alreadyRevoked, .alreadyInHousehold, .ownerMustHandOver, .householdFull, .inviteUsed, .inviteRevoked,
             .resetTokenUsed:
            .conflict
        case .inviteExpired, .resetTokenExpired:
            .gone
        case .notHouseholdOwner:
            .forbidden
        // Faster than a person: the same status as the other limits a client should slow down for.
        case .paceExceeded:
            .tooManyRequests
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
            return Problem(.busy, detail: "too many password checks are waiting; retry shortly", headers: [.retryAfter: "1"])
        case let error as HTTPError:
            return Problem(status: error.status, code: code(for: error.status), detail: error.body ?? error.status.reasonPhrase,
                           headers: error.headers)
        case let error as any HTTPResponseError:
            return Problem(status: error.status, code: code(for: error.status), detail: error.status.reasonPhrase)
        default:
            return Problem(.internalError, detail: "the server could not answer this request")
        }
    }

    /// The code of a status Hummingbird raised (its status is kept). The statuses it raises have
    /// codes of their own; any other is a bad request or an internal error by its class.
    static func code(for status: HTTPResponse.Status) -> Code {
        switch status {
        case .badRequest: .api(.badRequest)
        case .notFound: .api(.notFound)
        case .methodNotAllowed: .api(.methodNotAllowed)
        case .contentTooLarge: .rejection(.tooLarge)
        case .unsupportedMediaType: .api(.unsupportedMediaType)
        case .rangeNotSatisfiable: .api(.rangeNotSatisfiable)
        default: status.kind == .serverError ? .api(.internalError) : .api(.badRequest)
        }
    }

    // The problems the API raises itself, beside the core's rejections.
    static func malformedJSON(_ detail: String) -> Problem {
        Problem(Rejection(.malformedJSON, detail))
    }

    static func invalidField(_ detail: String) -> Problem {
        Problem(Rejection(.invalidField, detail))
    }

    static let invalidCredentials = Problem(.invalidCredentials, detail: "the username or password is wrong")

    static func invalidToken(_ detail: String) -> Problem {
        Problem(.invalidToken, detail: detail, headers: [.wwwAuthenticate: "Bearer"])
    }

    static func coreUnavailable(_ detail: String) -> Problem {
        Problem(.coreUnavailable, detail: detail, headers: [.retryAfter: "1"])
    }
}
