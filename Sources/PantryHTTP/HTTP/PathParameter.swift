import Foundation
import Hummingbird
import PantryDomain

enum PathParameter {
    /// The longest each parameter may be, in Unicode scalars, as the contract says: a longer one is
    /// refused here rather than looked up (an over-long user id used to answer an empty 200).
    private static let limits: [String: (length: Int, code: Rejection.Code)] = [
        "userId": (64, .invalidUserId), "recipeId": (128, .invalidRecipeId), "ingredient": (100, .invalidIngredient),
    ]

    /// A percent-decoded path segment; Hummingbird hands them over still encoded.
    static func value(_ name: String, in context: APIRequestContext) throws -> String {
        guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding else {
            throw Problem(.invalidPath, detail: "the path parameter '\(name)' is not valid percent-encoded UTF-8")
        }
        if let limit = limits[name], value.unicodeScalars.count > limit.length {
            throw Problem(Rejection(limit.code, "\(name) must be at most \(limit.length) characters"))
        }
        // The rest of the field's rule, as commands check it: a user id of other characters, or a
        // blank or control-laden recipe id, is refused, not looked up (it answered an empty 200).
        do throws(Rejection) {
            switch name {
            case "userId": _ = try Validate.userId(value)
            case "recipeId": _ = try Validate.recipeId(RecipeID(value))
            case "ingredient": _ = try Validate.ingredient(value)
            default: break
            }
        } catch {
            throw Problem(error)
        }
        return value
    }
}
