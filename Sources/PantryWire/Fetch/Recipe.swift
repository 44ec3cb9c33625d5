import Foundation

/// A recipe in Pantry's provider-neutral shape. `id` carries its provider as a prefix
/// ("spoonacular:716429", "mealdb:52772", "catalog:shakshuka").
public struct Recipe: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var image: String?
    public var servings: Int?
    public var readyInMinutes: Int?
    public var ingredients: [Ingredient]
    public var instructions: [String]
    /// Credit for the original source, which the upstream terms require to be shown.
    public var sourceName: String
    public var sourceUrl: String?
    /// Lowercase Spoonacular diet names, see `Diet`.
    public var diets: [String]
    public var dishTypes: [String]
    /// The licence the recipe's text is under, where the source grants one ("CC BY-SA 4.0" for
    /// the Wikibooks Cookbook), to be shown with the credit.
    public var license: String?
    public var licenseUrl: String?

    public init(
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

public struct Ingredient: Codable, Sendable, Equatable {
    public var name: String
    public var amount: Double?
    public var unit: String?
    /// The line as the source wrote it, e.g. "2 cloves garlic, minced".
    public var original: String

    public init(name: String, amount: Double?, unit: String?, original: String) {
        self.name = name
        self.amount = amount
        self.unit = unit
        self.original = original
    }
}

/// One search hit; the detail needs a `detail` request.
public struct RecipeSummary: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var image: String?
    /// What a result card shows; nil where the provider's search does not say (Spoonacular's
    /// by-ingredients search, TheMealDB).
    public var readyInMinutes: Int?
    public var servings: Int?
    public var usedIngredientCount: Int?
    public var missedIngredientCount: Int?

    public init(
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
public struct SearchPage: Codable, Sendable, Equatable {
    public var offset: Int
    public var totalResults: Int
    public var results: [RecipeSummary]

    public init(offset: Int, totalResults: Int, results: [RecipeSummary]) {
        self.offset = offset
        self.totalResults = totalResults
        self.results = results
    }
}

/// Image bytes as the upstream served them.
public struct ImageData: Codable, Sendable, Equatable {
    public var contentType: String
    public var bytes: Data

    public init(contentType: String, bytes: Data) {
        self.contentType = contentType
        self.bytes = bytes
    }
}
