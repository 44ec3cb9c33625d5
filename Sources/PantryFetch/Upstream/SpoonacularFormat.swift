import Foundation
import PantryWire

/// Spoonacular's JSON shapes (only the fields Pantry reads) and their mapping onto Pantry's model.
enum SpoonacularFormat {
    struct Ingredient: Decodable {
        var name: String?
        var amount: Double?
        var unit: String?
        var original: String?
    }

    struct Step: Decodable { var step: String? }
    struct InstructionBlock: Decodable { var steps: [Step]? }

    struct Information: Decodable {
        var id: Int
        var title: String
        var image: String?
        var servings: Int?
        var readyInMinutes: Int?
        var sourceUrl: String?
        var sourceName: String?
        var diets: [String]?
        var dishTypes: [String]?
        var instructions: String?
        var analyzedInstructions: [InstructionBlock]?
        var extendedIngredients: [Ingredient]?
        var vegan: Bool?
        var vegetarian: Bool?
        var glutenFree: Bool?
        var dairyFree: Bool?
        var ketogenic: Bool?
    }

    struct FoundByIngredients: Decodable {
        var id: Int
        var title: String
        var image: String?
        var usedIngredientCount: Int?
        var missedIngredientCount: Int?
    }

    struct SearchResult: Decodable {
        var id: Int
        var title: String
        var image: String?
        var readyInMinutes: Int?
        var servings: Int?
    }

    struct SearchResponse: Decodable {
        var offset: Int?
        var totalResults: Int?
        var results: [SearchResult]
    }

    struct RandomResponse: Decodable { var recipes: [Information] }
    struct Suggestion: Decodable { var name: String }

    static func recipeID(_ id: Int) -> String { "spoonacular:\(id)" }

    static func recipe(_ info: Information) -> Recipe {
        var flags: [String] = info.diets ?? []
        if info.vegan == true { flags.append("vegan") }
        if info.vegetarian == true { flags.append("vegetarian") }
        if info.glutenFree == true { flags.append("gluten free") }
        if info.dairyFree == true { flags.append("dairy free") }
        if info.ketogenic == true { flags.append("ketogenic") }
        return Recipe(
            id: recipeID(info.id),
            title: info.title,
            image: nonEmpty(info.image),
            servings: info.servings,
            readyInMinutes: info.readyInMinutes,
            ingredients: (info.extendedIngredients ?? []).compactMap(ingredient),
            instructions: instructions(info),
            sourceName: nonEmpty(info.sourceName) ?? "Spoonacular",
            sourceUrl: nonEmpty(info.sourceUrl),
            diets: Diet.normalize(flags),
            dishTypes: (info.dishTypes ?? []).map { $0.lowercased() })
    }

    static func summary(_ found: FoundByIngredients) -> RecipeSummary {
        RecipeSummary(
            id: recipeID(found.id), title: found.title, image: nonEmpty(found.image),
            usedIngredientCount: found.usedIngredientCount, missedIngredientCount: found.missedIngredientCount)
    }

    static func summary(_ result: SearchResult) -> RecipeSummary {
        RecipeSummary(id: recipeID(result.id), title: result.title, image: nonEmpty(result.image), readyInMinutes: result.readyInMinutes,
                      servings: result.servings)
    }

    /// Pantry's diet names as complexSearch parameters: `diet` where Spoonacular has
    /// that diet, `intolerances` for dairy.
    static func searchParameters(diet: String) -> (name: String, value: String) {
        switch diet {
        case "lacto ovo vegetarian": ("diet", "vegetarian")
        case "pescatarian": ("diet", "pescetarian")
        case "whole 30": ("diet", "whole30")
        case "dairy free": ("intolerances", "dairy")
        default: ("diet", diet)
        }
    }

    private static func ingredient(_ raw: Ingredient) -> PantryWire.Ingredient? {
        guard let name = nonEmpty(raw.name) else { return nil }
        return PantryWire.Ingredient(
            name: name, amount: raw.amount, unit: nonEmpty(raw.unit), original: nonEmpty(raw.original) ?? name)
    }

    /// Analyzed steps when present; else the free-text instructions without HTML, one line per step.
    private static func instructions(_ info: Information) -> [String] {
        let steps = (info.analyzedInstructions ?? []).flatMap { $0.steps ?? [] }.compactMap { nonEmpty($0.step) }
        if !steps.isEmpty { return steps }
        guard let text = info.instructions else { return [] }
        let withBreaks = text.replacingOccurrences(of: "<(/p|br ?/?|/li)>", with: "\n", options: [.regularExpression, .caseInsensitive])
        let plain = withBreaks.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        return plain.split(whereSeparator: \.isNewline).compactMap { nonEmpty(String($0)) }
    }
}

/// The trimmed text, or nil when nothing is left.
func nonEmpty(_ text: String?) -> String? {
    guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
    return trimmed
}
