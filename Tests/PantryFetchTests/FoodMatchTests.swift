import Foundation
import Testing
@testable import PantryFetch
import PantryWire

/// Ingredient matching by whole food names, on the cases the search-quality review found.
@Suite struct FoodMatchTests {
    func recipe(_ id: String, _ title: String, minutes: Int? = nil, _ lines: [String], dishTypes: [String] = []) -> Recipe {
        Recipe(id: "catalog:\(id)", title: title, image: nil, servings: nil, readyInMinutes: minutes,
               ingredients: lines.map { Ingredient(name: $0, amount: nil, unit: nil, original: $0) }, instructions: [],
               sourceName: "test", sourceUrl: nil, diets: [], dishTypes: dishTypes)
    }

    func uses(_ line: String, _ food: String) -> Bool {
        FoodMatch(FoodVocabulary.words(food)).isIn(FoodVocabulary.words(line))
    }

    @Test("A food's name inside another food's name is not that food")
    func derivedFoodsAreOtherFoods() {
        #expect(uses("chicken breasts", "chicken") && uses("whole chicken", "chicken") && uses("beef or chicken", "chicken"))
        #expect(!uses("chicken broth", "chicken") && !uses("low-sodium chicken stock", "chicken"))
        #expect(!uses("chicken or vegetable broth", "chicken") && !uses("cream of chicken soup", "chicken"))
        #expect(uses("red bell peppers", "peppers") && uses("green pepper", "peppers"))
        #expect(!uses("freshly-ground black pepper", "peppers") && !uses("cayenne pepper", "peppers") && !uses("red pepper flakes", "peppers"))
        #expect(!uses("coconut milk", "milk") && !uses("peanut butter", "butter") && !uses("banana peppers", "bananas"))
        #expect(uses("2 eggs", "egg") && !uses("eggplant", "egg"))
    }

    @Test("Plurals, accents and regional names fold to one food")
    func spellingsFold() {
        #expect(FoodVocabulary.words("Chilies") == ["chili"] && FoodVocabulary.words("chillies") == ["chili"])
        #expect(FoodVocabulary.words("cookies") == ["cookie"] && FoodVocabulary.words("Jalapeño") == ["jalapeno"])
        #expect(uses("courgettes", "zucchini") && uses("aubergine", "eggplant") && uses("fresh coriander", "cilantro"))
        #expect(uses("spring onions", "scallions") && uses("prawns", "shrimp"))
        #expect(!uses("ground coriander", "cilantro"), "the spice, not the leaves")
    }

    @Test("Staples are ignored both ways: typed they count for nothing, in a recipe they are not missing")
    func staplesAreIgnoredBothWays() {
        let recipes = [
            recipe("a", "Roast Chicken", ["chicken", "salt", "black pepper"]),
            recipe("b", "Salted Broth", ["chicken broth", "salt"]),
        ]
        let found = CatalogSearch(recipes: recipes).byIngredients(["chicken", "salt"], number: 5)
        #expect(found.map(\.id) == ["catalog:a"], "chicken broth is not chicken, and salt was not what the cook meant")
        #expect(found.first?.usedIngredientCount == 1 && found.first?.missedIngredientCount == 0)
        #expect(FoodMatch.isStaple(typed: "salt") && !FoodMatch.isStaple(typed: "pepper"), "pepper typed alone is the vegetable")
    }

    @Test("Among recipes alike in what they use and are named after, fewest missing comes first")
    func fewestMissingBreaksTies() {
        let recipes = [
            recipe("a", "Supper", ["beans", "carrot", "leek", "celery", "kale"]),
            recipe("b", "Dinner", ["beans", "carrot"]),
            recipe("c", "Lunch", ["beans", "carrot", "leek"]),
        ]
        let found = CatalogSearch(recipes: recipes).byIngredients(["beans"], number: 5)
        #expect(found.map(\.missedIngredientCount) == [1, 2, 4])
    }

    @Test("The main food outweighs a seasoning: chicken, rice and garlic finds chicken dishes first")
    func mainFoodOutweighsSeasoning() {
        let recipes = [
            // Uses all three with fewer other lines, but is named after the rice only.
            recipe("gin", "Gin Fried Rice", ["rice", "eggs", "soy sauce", "gin", "chicken", "butter", "garlic", "pepper flakes"]),
            recipe("cfr", "Chicken Fried Rice", ["rice", "eggs", "soy sauce", "chicken", "peas", "carrot", "onion", "garlic", "scallion"]),
            // Chicken and garlic outweigh rice and garlic, whatever else is missing.
            recipe("roast", "Roast Dinner", ["chicken", "garlic", "potatoes", "carrots", "thyme", "lemon", "butter"]),
            recipe("pilaf", "Garlic Pilaf", ["rice", "garlic", "butter"]),
        ]
        let found = CatalogSearch(recipes: recipes).byIngredients(["chicken", "rice", "garlic"], number: 5)
        #expect(found.map(\.id) == ["catalog:cfr", "catalog:gin", "catalog:roast", "catalog:pilaf"])
        #expect(FoodVocabulary.weight(of: ["chicken"]) > FoodVocabulary.weight(of: ["rice"]))
        #expect(FoodVocabulary.weight(of: ["rice"]) > FoodVocabulary.weight(of: FoodVocabulary.words("ground cumin")))
    }

    @Test("Autocomplete offers one food once, whatever its number or accents")
    func autocompleteHasNoDuplicates() {
        let names = ["eggs", "egg", "egg yolk", "eggplant", "jalapeño", "jalapeno", "jalapeños"]
        #expect(IngredientMatching.autocomplete(prefix: "egg", in: names, limit: 10) == ["egg", "egg yolk", "eggplant"])
        #expect(IngredientMatching.autocomplete(prefix: "jalape", in: names, limit: 10) == ["jalapeno"])
    }

    @Test("Autocomplete offers ingredient names, not what a recipe's line said after them")
    func autocompleteOffersNamesNotLines() {
        let recipes = [
            recipe("a", "Fried Rice", ["eggs either scrambled", "butter or margarine", "garlic, minced", "rice (cooked)"]),
            recipe("b", "Omelette", ["eggs", "cheddar cheese cut into cubes", "salt to taste"]),
        ]
        let search = CatalogSearch(recipes: recipes)
        #expect(search.autocomplete(prefix: "eg", number: 10) == ["eggs"])
        #expect(search.autocomplete(prefix: "b", number: 10) == ["butter"])
        #expect(search.autocomplete(prefix: "g", number: 10) == ["garlic"])
        #expect(search.autocomplete(prefix: "ch", number: 10) == ["cheddar cheese"])
        #expect(search.autocomplete(prefix: "ri", number: 10) == ["rice"])
        #expect(search.autocomplete(prefix: "salt", number: 10) == ["salt"])
    }

    @Test("Quick is a time, not a word: quick breakfast finds breakfasts that fit in half an hour")
    func quickIsATime() {
        let recipes = [
            recipe("slow", "Slow Breakfast Bake", minutes: 90, ["egg"]),
            recipe("unknown", "Breakfast Burrito", ["tortilla"]),
            recipe("fast", "Porridge", minutes: 10, ["oat"], dishTypes: ["breakfast"]),
        ]
        let page = CatalogSearch(recipes: recipes).search(query: "quick breakfast", diet: nil, maxReadyTime: nil, offset: 0, number: 5)
        #expect(page.results.map(\.id) == ["catalog:unknown", "catalog:fast"])
    }
}
