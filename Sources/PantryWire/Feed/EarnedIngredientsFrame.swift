import Foundation
import PantryJSON
import PantryLog

/// The log service's answer to a `counted` read (`bus/counted-answer.schema.json`): one frame,
/// `{"head": H, "ingredients": [...]}`, or the refusal `LogAnswer.refusal` writes.
extension EarnedIngredients {
    package var json: Data {
        var w = JSONObjectWriter()
        w.field("head", head); w.field("ingredients", ingredients)
        return Data(w.finish())
    }

    /// The answer, or the refusal it carries instead (thrown as `LogRead.Invalid`).
    package static func decode(_ frame: Data) throws -> EarnedIngredients {
        try frame.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                try LogAnswer.refusal(in: json)
                guard let ingredients = try json.optionalStrings("ingredients"), ingredients.count <= limit else {
                    throw LogRead.Invalid(description: "the answer's ingredients are missing or more than \(limit)")
                }
                let head = try json.int64("head")
                guard head >= 0 else { throw LogRead.Invalid(description: "the answer's head is negative") }
                return EarnedIngredients(head: head, ingredients: ingredients)
            }
        }
    }
}
