import Foundation
import PantryRandom
import Synchronization
import PantryWire

/// The embedded recipe catalog: the default without a Spoonacular key; works offline.
final class CatalogProvider: RecipeProvider {
    let name = "catalog"
    let isLocal = true
    private let search: CatalogSearch
    private let generator: Mutex<SeededGenerator>

    /// Loads `file`, or the bundled catalog.json when nil, and the recipes of `imported` beside it.
    /// A recipe without a picture gets the one the API draws for it.
    init(file: URL?, imported: URL? = nil, seed: UInt64) throws(FetchConfigurationError) {
        guard let url = file ?? Bundle.module.url(forResource: "catalog", withExtension: "json") else {
            throw FetchConfigurationError("the bundled catalog.json is missing")
        }
        var recipes = try Self.load(url)
        if let imported {
            let known = Set(recipes.map(\.id))
            recipes += try Self.load(imported).filter { !known.contains($0.id) }
        }
        search = CatalogSearch(recipes: recipes.map { recipe in
            var recipe = recipe
            if recipe.image == nil { recipe.image = Self.drawnImage(recipe.id) }
            return recipe
        })
        generator = Mutex(SeededGenerator(seed: seed))
    }

    /// The API route that draws a recipe's picture from its name and ingredients.
    static func drawnImage(_ id: String) -> String { "/v1/recipes/\(id)/image" }

    private static func load(_ url: URL) throws(FetchConfigurationError) -> [Recipe] {
        let recipes: [Recipe]
        do {
            recipes = try JSONDecoder().decode([Recipe].self, from: Data(contentsOf: url))
        } catch {
            throw FetchConfigurationError("cannot load recipe catalog \(url.path): \(error)")
        }
        if let bad = recipes.first(where: { !$0.id.hasPrefix("catalog:") }) {
            throw FetchConfigurationError("catalog recipe id \(bad.id) in \(url.path) does not start with \"catalog:\"")
        }
        return recipes
    }

    var recipes: [Recipe] { search.recipes }
    var count: Int { search.recipes.count }

    func fetch(_ request: FetchRequest) async throws(ProviderError) -> FetchPayload {
        try generator.withLock { generator throws(ProviderError) in try search.answer(request, using: &generator) }
    }
}
