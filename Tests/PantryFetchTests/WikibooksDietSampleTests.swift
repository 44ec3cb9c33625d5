import Foundation
import Testing
@testable import PantryFetch

/// The diets the Wikibooks import claims, checked against a hand-labelled sample of its real pages
/// (Tests/Fixtures/diet-sample.json: page key to the diets a careful cook would give it; the rules are in
/// its "about"). A vegetarian who trusts a wrong "vegetarian" eats meat, so every claim must be right;
/// a vegetarian dish not called so is only a recipe missed, so recall need only stay reasonable.
@Suite struct WikibooksDietSampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let source = repository.appendingPathComponent(".cache/catalog/recipes_en-us.json")
    static let sample = repository.appendingPathComponent("Tests/Fixtures/diet-sample.json")

    struct Labels: Decodable {
        struct Diets: Decodable { var vegetarian: Bool; var vegan: Bool }
        var recipes: [String: Diets]
    }

    @Test func everyRecipeOfTheHandLabelledSampleCalledVegetarianOrVeganIsSo() throws {
        guard FileManager.default.fileExists(atPath: Self.source.path) else {
            Issue.record("\(Self.source.path) is missing: run ops/setup, which downloads the Wikibooks Cookbook")
            return
        }
        let labels = try JSONDecoder().decode(Labels.self, from: Data(contentsOf: Self.sample)).recipes
        #expect(labels.count >= 200, "the sample is large enough to mean something")
        #expect(labels.values.filter(\.vegetarian).count >= 60 && labels.values.filter(\.vegan).count >= 30)
        #expect(labels.values.allSatisfy { !$0.vegan || $0.vegetarian })
        let issue33 = ["Roast Beef Round with Au Jus", "Rosemary Garlic Fish", "Crispy Fish Sandwich", "Chilli Crab", "Drunken Shrimp",
                       "Rumaki (Bacon-wrapped Chicken Liver and Water Chestnut)"]
        #expect(issue33.allSatisfy { labels["Cookbook:" + $0].map { !$0.vegetarian } ?? false }, "the pages issue 33 named")

        let imported = try WikibooksCookbook.recipes(fromJSON: Data(contentsOf: Self.source)).recipes
        let bySource = Dictionary(imported.compactMap { recipe in recipe.sourceUrl.map { ($0, recipe) } },
                                  uniquingKeysWith: { first, _ in first })
        var claimed: [(page: String, diets: [String], label: Labels.Diets)] = []
        for (page, label) in labels.sorted(by: { $0.key < $1.key }) {
            guard let url = WikibooksCookbook.pageURL(page), let recipe = bySource[url] else {
                Issue.record("\(page) is in the sample but not among the imported recipes")
                continue
            }
            claimed.append((page, recipe.diets, label))
        }

        for diet in ["vegetarian", "vegan"] {
            let labelled = { (label: Labels.Diets) in diet == "vegan" ? label.vegan : label.vegetarian }
            let called = claimed.filter { $0.diets.contains(diet) }
            let wrong = called.filter { !labelled($0.label) }
            let right = called.count - wrong.count
            let truly = claimed.filter { labelled($0.label) }.count
            let precision = called.isEmpty ? 1 : Double(right) / Double(called.count)
            let recall = truly == 0 ? 1 : Double(right) / Double(truly)
            print(String(format: "%@: precision %.1f%% (%d of %d called so), recall %.1f%% (%d of %d labelled so)",
                         diet, precision * 100, right, called.count, recall * 100, right, truly))
            for miss in wrong { print("  called \(diet) but is not: \(miss.page)") }
            let everyClaimRight = wrong.isEmpty, usefulRecall = recall >= 0.5
            #expect(everyClaimRight, "\(diet) claimed for: \(wrong.map(\.page))")
            #expect(usefulRecall, "\(diet) recall \(recall): the import calls too little \(diet) to be useful")
        }
    }
}
