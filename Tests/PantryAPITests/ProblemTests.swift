import Foundation
@testable import PantryHTTP
import Hummingbird
import PantryDomain
import Testing

@Suite struct ProblemTests {
    static let expected: [Rejection.Code: Int] = [
        .malformedJSON: 400, .invalidUTF8: 400, .tooLarge: 413, .unknownCommand: 500,
        .unknownUser: 404, .noSuchItem: 404, .notSaved: 404, .unknownRecipe: 404,
        .userExists: 409, .usernameTaken: 409, .emailTaken: 409, .alreadySaved: 409, .unchanged: 409,
        .alreadyUsed: 409, .cartOutOfRange: 409, .limitReached: 409,
        .invalidField: 422, .invalidCommandId: 422, .invalidUserId: 422, .invalidUsername: 422, .invalidEmail: 422,
        .invalidPasswordHash: 422, .invalidRecipeId: 422, .invalidTitle: 422, .invalidImageURL: 422,
        .invalidIngredient: 422, .invalidAmount: 422, .invalidUnit: 422, .invalidDelta: 422, .invalidText: 422,
        .notInRecipe: 422, .commandIdReused: 422, .invalidMinutes: 422,
        .notCooking: 409, .paceExceeded: 429, .alreadyRevoked: 409,
        .alreadyInHousehold: 409, .notInHousehold: 404, .notHouseholdOwner: 403, .ownerMustHandOver: 409, .notHouseholdMember: 404,
        .householdFull: 409, .noSuchInvite: 404, .inviteUsed: 409, .inviteExpired: 410, .inviteRevoked: 409,
        .resetTokenInvalid: 404, .resetTokenUsed: 409, .resetTokenExpired: 410,
    ]

    @Test(arguments: Rejection.Code.allCases)
    func everyRejectionCodeHasItsStatus(_ code: Rejection.Code) {
        #expect(Problem.status(for: code).code == Self.expected[code])
    }

    /// Spelt once each, so the two lists could share a spelling only by mistake.
    @Test func theAPIsCodesAreNotTheCoresCodes() {
        let api = Set(ProblemCode.allCases.map(\.rawValue))
        #expect(api.count == ProblemCode.allCases.count)
        #expect(api.isDisjoint(with: Rejection.Code.allCases.map(\.rawValue)))
    }

    /// openapi.yaml names every code a client may meet (in prose: it has no list to compare).
    @Test(arguments: ProblemCode.allCases)
    func everyCodeIsNamedInTheContract(_ code: ProblemCode) throws {
        let contract = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../schemas/openapi.yaml").standardizedFileURL
        #expect(try String(contentsOf: contract, encoding: .utf8).contains("`\(code.rawValue)`"))
    }

    @Test func aStatusHummingbirdRaisesKeepsItsCodeAndStatus() {
        #expect(Problem.from(HTTPError(.notFound)).code == .api(.notFound))
        #expect(Problem.from(HTTPError(.contentTooLarge)).code == .rejection(.tooLarge))
        #expect(Problem.from(HTTPError(.rangeNotSatisfiable)).code == .api(.rangeNotSatisfiable))
        let timeout = Problem.from(HTTPError(.requestTimeout))
        #expect(timeout.status == .requestTimeout && timeout.code == .api(.badRequest))
    }

    @Test func theDocumentFollowsRFC9457() throws {
        let problem = Problem(Rejection(.alreadySaved, "recipe r1 is already saved"))
        let document = try JSONSerialization.jsonObject(with: problem.document) as? [String: Any]
        #expect(document?["type"] as? String == "https://pantry.example/problems/already_saved")
        #expect(document?["title"] as? String == "Already saved")
        #expect(document?["status"] as? Int == 409)
        #expect(document?["detail"] as? String == "recipe r1 is already saved")
        #expect(document?["code"] as? String == "already_saved")
        #expect(problem.response.headers[.contentType] == "application/problem+json")
    }

    @Test func aDetailWithQuotesControlsAndUnicodeReadsBackAsWritten() throws {
        let detail = "the field \"name\" at /v1/me\nholds \\ and \u{1}: ÁNNA 🍳 \u{2028}"
        let problem = Problem.invalidField(detail)
        let document = try #require(try JSONSerialization.jsonObject(with: problem.document) as? [String: Any])
        #expect(Set(document.keys) == ["code", "detail", "status", "title", "type"])
        #expect(document["detail"] as? String == detail)
        #expect(document["title"] as? String == "Invalid field")
        #expect(document["status"] as? Int == 422)
        // Slashes are left as they are, as the encoder this replaced was told to.
        #expect(String(decoding: problem.document, as: UTF8.self).contains("https://pantry.example/problems/invalid_field"))
    }

    @Test func unexpectedErrorsBecomeAGeneric500() {
        struct Oops: Error { var secret = "do not show" }
        let problem = Problem.from(Oops())
        #expect(problem.status == .internalServerError)
        #expect(!problem.detail.contains("do not show"))
    }
}
