import Foundation

/// A recipe in Pantry's provider-neutral shape. `id` carries its provider as a prefix
/// ("spoonacular:716429", "mealdb:52772", "catalog:shakshuka").
package struct Recipe: Codable, Sendable, Equatable {
    package var id: String
    package var title: String
    package var image: String?
    package var servings: Int?
    package var readyInMinutes: Int?
    package var ingredients: [Ingredient]
    package var instructions: [String]
    /// Credit for the original source, which the upstream terms require to be shown.
    package var sourceName: String
    package var sourceUrl: String?
    /// Lowercase Spoonacular diet names, see `Diet`.
    package var diets: [String]
    package var dishTypes: [String]
    /// The licence the recipe's text is under, where the source grants one ("CC BY-SA 4.0" for
    /// the Wikibooks Cookbook), to be shown with the credit.
    package var license: String?
    package var licenseUrl: String?

    package init(
        id: String, title: String, image: String?, servings: Int?, readyInMinutes: Int?,
        ingredients: [Ingredient], instructions: [String], sourceName: String, sourceUrl: String?,
        diets: [String], dishTypes: [String], license: String? = nil, licenseUrl: String? = nil
    ) {
        self.id = id
        self.title = title
        self.image = image
        self.servings = servings
        self.readyInMinutes = readyInMinutes
        self.ingredients = ingredients
        self.instructions = instructions
        self.sourceName = sourceName
        self.sourceUrl = sourceUrl
        self.diets = diets
        self.dishTypes = dishTypes
        self.license = license
        self.licenseUrl = licenseUrl
    }
}

package struct Ingredient: Codable, Sendable, Equatable {
    package var name: String
    package var amount: Double?
    package var unit: String?
    /// The line as the source wrote it, e.g. "2 cloves garlic, minced".
    package var original: String

    package init(name: String, amount: Double?, unit: String?, original: String) {
        self.name = name
        self.amount = amount
        self.unit = unit
        self.original = original
    }
}

/// One search hit; the detail needs a `detail` request.
package struct RecipeSummary: Codable, Sendable, Equatable {
    package var id: String
    package var title: String
    package var image: String?
    /// What a result card shows; nil where the provider's search does not say (Spoonacular's
    /// by-ingredients search, TheMealDB).
    package var readyInMinutes: Int?
    package var servings: Int?
    package var usedIngredientCount: Int?
    package var missedIngredientCount: Int?

    package init(
        id: String, title: String, image: String?, readyInMinutes: Int? = nil, servings: Int? = nil,
        usedIngredientCount: Int? = nil, missedIngredientCount: Int? = nil
    ) {
        self.id = id
        self.title = title
        self.image = image
        self.readyInMinutes = readyInMinutes
        self.servings = servings
        self.usedIngredientCount = usedIngredientCount
        self.missedIngredientCount = missedIngredientCount
    }
}

/// A page of keyword-search results.
package struct SearchPage: Codable, Sendable, Equatable {
    package var offset: Int
    package var totalResults: Int
    package var results: [RecipeSummary]

    package init(offset: Int, totalResults: Int, results: [RecipeSummary]) {
        self.offset = offset
        self.totalResults = totalResults
        self.results = results
    }
}

/// Image bytes as the upstream served them.
package struct ImageData: Codable, Sendable, Equatable {
    package var contentType: String
    package var bytes: Data

    package init(contentType: String, bytes: Data) {
        self.contentType = contentType
        self.bytes = bytes
    }
}
