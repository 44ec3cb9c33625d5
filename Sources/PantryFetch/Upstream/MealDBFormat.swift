import Foundation
import PantryWire

/// TheMealDB's JSON shapes and their mapping onto Pantry's model.
enum MealDBFormat {
    /// `{"meals": [...]}`, where `null` means no match.
    struct Envelope<Item: Decodable>: Decodable {
        var meals: [Item]?
    }

    struct FilteredMeal: Decodable {
        var idMeal: String
        var strMeal: String
        var strMealThumb: String?
    }

    struct ListedIngredient: Decodable {
        var strIngredient: String?
    }

    /// A full meal; the numbered ingredient slots are read by name.
    struct Meal: Decodable {
        var idMeal: String
        var strMeal: String
        var strCategory: String?
        var strInstructions: String?
        var strMealThumb: String?
        var strTags: String?
        var strSource: String?
        var slots: [(ingredient: String?, measure: String?)]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func text(_ name: String) throws -> String? { try c.decodeIfPresent(String.self, forKey: Key(stringValue: name)) }
            idMeal = try c.decode(String.self, forKey: Key(stringValue: "idMeal"))
            strMeal = try c.decode(String.self, forKey: Key(stringValue: "strMeal"))
            strCategory = try text("strCategory")
            strInstructions = try text("strInstructions")
            strMealThumb = try text("strMealThumb")
            strTags = try text("strTags")
            strSource = try text("strSource")
            slots = try (1...20).map { (try text("strIngredient\($0)"), try text("strMeasure\($0)")) }
        }
    }

    static func recipeID(_ idMeal: String) -> String { "mealdb:\(idMeal)" }

    static func recipe(_ meal: Meal) -> Recipe {
        let category = nonEmpty(meal.strCategory)?.lowercased()
        return Recipe(
            id: recipeID(meal.idMeal),
            title: meal.strMeal,
            image: nonEmpty(meal.strMealThumb),
            servings: nil,
            readyInMinutes: nil,
            ingredients: meal.slots.compactMap(ingredient),
            instructions: instructions(meal.strInstructions),
            sourceName: "TheMealDB",
            sourceUrl: Recipe.webLink(nonEmpty(meal.strSource)) ?? "https://www.themealdb.com/meal/\(meal.idMeal)",
            diets: Diet.normalize(category.map { [$0] } ?? []),
            dishTypes: dishTypes(category))
    }

    static func summary(_ meal: FilteredMeal, used: Int) -> RecipeSummary {
        RecipeSummary(id: recipeID(meal.idMeal), title: meal.strMeal, image: nonEmpty(meal.strMealThumb), usedIngredientCount: used)
    }

    /// Empty slots are "", " " or null and are dropped.
    private static func ingredient(_ slot: (ingredient: String?, measure: String?)) -> Ingredient? {
        guard let name = nonEmpty(slot.ingredient) else { return nil }
        let measure = nonEmpty(slot.measure)
        let (amount, unit) = measure.map(MeasureParser.parse) ?? (nil, nil)
        return Ingredient(name: name, amount: amount, unit: unit, original: measure.map { "\($0) \(name)" } ?? name)
    }

    /// One step per non-empty line, without "STEP 3"-style headings.
    private static func instructions(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: \.isNewline).compactMap { nonEmpty(String($0)) }
            .filter { $0.range(of: #"^(step\s*)?\d+\.?$"#, options: [.regularExpression, .caseInsensitive]) == nil }
    }

    /// TheMealDB's categories are mostly main ingredients; only some name a course.
    private static func dishTypes(_ category: String?) -> [String] {
        switch category {
        case nil: []
        case "dessert": ["dessert"]
        case "side": ["side dish"]
        case "starter": ["starter"]
        case "breakfast": ["breakfast"]
        default: ["main course"]
        }
    }
}
