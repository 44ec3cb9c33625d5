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
        self.sourceUrl = Self.webLink(sourceUrl)
        self.diets = diets
        self.dishTypes = dishTypes
        self.license = license
        self.licenseUrl = Self.webLink(licenseUrl)
    }

    /// Through the initialiser, so a link an older cache entry holds is checked as a new one is.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), title: try c.decode(String.self, forKey: .title),
                  image: try c.decodeIfPresent(String.self, forKey: .image),
                  servings: try c.decodeIfPresent(Int.self, forKey: .servings),
                  readyInMinutes: try c.decodeIfPresent(Int.self, forKey: .readyInMinutes),
                  ingredients: try c.decode([Ingredient].self, forKey: .ingredients),
                  instructions: try c.decode([String].self, forKey: .instructions),
                  sourceName: try c.decode(String.self, forKey: .sourceName),
                  sourceUrl: try c.decodeIfPresent(String.self, forKey: .sourceUrl),
                  diets: try c.decode([String].self, forKey: .diets), dishTypes: try c.decode([String].self, forKey: .dishTypes),
                  license: try c.decodeIfPresent(String.self, forKey: .license),
                  licenseUrl: try c.decodeIfPresent(String.self, forKey: .licenseUrl))
    }

    /// A link from an upstream, kept only when it is an `http` or `https` address with a host: a
    /// `javascript:` or `data:` source link would run in the web app once rendered as a link
    /// (issue 45 found one rendered, stopped only by the CSP). Any other is dropped, and the
    /// credit is shown as plain text.
    package static func webLink(_ text: String?) -> String? {
        guard let text, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return nil }
        return text
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
