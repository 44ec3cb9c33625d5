import Foundation
import Synchronization

/// The embedded recipe catalog: the default without a Spoonacular key; works offline.
final class CatalogProvider: RecipeProvider {
    let name = "catalog"
    let isLocal = true
    private let search: CatalogSearch
    private let generator: Mutex<SplitMix64>

    /// Loads `file`, or the bundled catalog.json when nil.
    init(file: URL?, seed: UInt64) throws(FetchConfigurationError) {
        guard let url = file ?? Bundle.module.url(forResource: "catalog", withExtension: "json") else {
            throw FetchConfigurationError("the bundled catalog.json is missing")
        }
        let recipes: [Recipe]
        do {
            recipes = try JSONDecoder().decode([Recipe].self, from: Data(contentsOf: url))
        } catch {
            throw FetchConfigurationError("cannot load recipe catalog \(url.path): \(error)")
        }
        if let bad = recipes.first(where: { !$0.id.hasPrefix("catalog:") }) {
            throw FetchConfigurationError("catalog recipe id \(bad.id) does not start with \"catalog:\"")
        }
        search = CatalogSearch(recipes: recipes)
        generator = Mutex(SplitMix64(seed: seed))
    }

    var recipes: [Recipe] { search.recipes }
    var count: Int { search.recipes.count }

    func fetch(_ request: FetchRequest) async throws(ProviderError) -> FetchPayload {
        try generator.withLock { generator throws(ProviderError) in try search.answer(request, using: &generator) }
    }
}
