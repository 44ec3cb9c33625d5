import Foundation
import PantryDomain
import Testing
@testable import PantryFetch
import PantryWire

@Suite struct NormalisationTests {
    @Test(arguments: [
        ("1 1/2 cups", 1.5, "cups"), ("200g", 200, "g"), ("½ tsp", 0.5, "tsp"), ("3/4 cup", 0.75, "cup"),
        ("2", 2, nil), ("1 (12 oz.)", 1, "(12 oz.)"), ("2.5 kg", 2.5, "kg"),
        // The fractions the catalog's lines read, TheMealDB's measures read too.
        ("⅜ cup", 0.375, "cup"), ("1 ⅝ tsp", 1.625, "tsp"), ("⅞ oz", 0.875, "oz"),
    ] as [(String, Double, String?)])
    func measuresSplitIntoAmountAndUnit(_ measure: String, _ amount: Double, _ unit: String?) {
        let parsed = MeasureParser.parse(measure)
        #expect(parsed.amount == amount)
        #expect(parsed.unit == unit)
    }

    @Test func measuresWithoutANumberHaveNoAmount() {
        #expect(MeasureParser.parse("To taste") == (nil, nil))
        #expect(MeasureParser.parse("1/0 cup").amount == nil)
    }

    @Test func ingredientMatchingIgnoresCaseAndPluralsButNotWordBoundaries() {
        #expect(IngredientName.matches(ingredient: "Eggs", query: "egg"))
        #expect(IngredientName.matches(ingredient: "crushed tomatoes", query: "Tomato"))
        #expect(IngredientName.matches(ingredient: "fresh blueberries", query: "blueberry"))
        #expect(IngredientName.matches(ingredient: "red bell pepper", query: "bell peppers"))
        #expect(!IngredientName.matches(ingredient: "eggplant", query: "egg"))
        #expect(!IngredientName.matches(ingredient: "pepper", query: "bell pepper"))
    }

    @Test func autocompletePrefersWholeNamePrefixes() {
        let names = ["Green apple", "apple", "Apple juice", "banana", "apricot"]
        #expect(IngredientMatching.autocomplete(prefix: "ap", in: names, limit: 3) == ["apple", "apricot", "apple juice"])
        #expect(IngredientMatching.autocomplete(prefix: "ap", in: names, limit: 10).last == "green apple")
    }

    @Test func dietsMapOntoTheVocabulary() {
        #expect(Diet.normalize(["Paleolithic", "fodmap friendly", "lacto ovo vegetarian", "gluten free"])
            == ["gluten free", "vegetarian", "lacto ovo vegetarian", "paleo"])
    }

    @Test func mealDBMealNormalisesEmptySlotsAndMeasures() throws {
        let json = """
            {"meals":[{"idMeal":"52772","strMeal":"Teriyaki Chicken Casserole","strCategory":"Chicken",
            "strInstructions":"Preheat oven.\\r\\n\\r\\nSTEP 2\\r\\nBake 45 minutes.","strMealThumb":"https://x/y.jpg",
            "strTags":"Meat","strSource":"","strIngredient1":"soy sauce","strMeasure1":"3/4 cup",
            "strIngredient2":"chicken breasts","strMeasure2":"2","strIngredient3":"salt","strMeasure3":" ",
            "strIngredient4":"","strMeasure4":"","strIngredient5":" ","strMeasure5":" ","strIngredient6":null,"strMeasure6":null}]}
            """
        let envelope = try JSONDecoder().decode(MealDBFormat.Envelope<MealDBFormat.Meal>.self, from: Data(json.utf8))
        let recipe = MealDBFormat.recipe(try #require(envelope.meals?.first))
        #expect(recipe.id == "mealdb:52772")
        #expect(recipe.ingredients == [
            Ingredient(name: "soy sauce", amount: 0.75, unit: "cup", original: "3/4 cup soy sauce"),
            Ingredient(name: "chicken breasts", amount: 2, unit: nil, original: "2 chicken breasts"),
            Ingredient(name: "salt", amount: nil, unit: nil, original: "salt"),
        ])
        #expect(recipe.instructions == ["Preheat oven.", "Bake 45 minutes."])
        #expect(recipe.sourceName == "TheMealDB")
        #expect(recipe.sourceUrl == "https://www.themealdb.com/meal/52772")
        #expect(recipe.servings == nil && recipe.readyInMinutes == nil)
        #expect(recipe.dishTypes == ["main course"])
        let none = try JSONDecoder().decode(MealDBFormat.Envelope<MealDBFormat.Meal>.self, from: Data(#"{"meals": null}"#.utf8))
        #expect(none.meals == nil)
    }

    @Test("an upstream's source link that is not http(s) is dropped: from either provider, and from an answer cached before")
    func aSourceLinkThatIsNotHTTPIsDropped() throws {
        let hostile = ["javascript:alert(document.cookie)", "JavaScript:alert(1)", " javascript:alert(1)", "data:text/html,<script>x</script>",
                       "vbscript:msgbox", "//evil.example/x", "https:", "file:///etc/passwd"]
        for link in hostile {
            let escaped = String(data: try JSONEncoder().encode(link), encoding: .utf8)!
            let spoonacular = #"{"id": 1, "title": "T", "sourceName": "Evil", "sourceUrl": \#(escaped)}"#
            let recipe = SpoonacularFormat.recipe(try JSONDecoder().decode(SpoonacularFormat.Information.self, from: Data(spoonacular.utf8)))
            #expect(recipe.sourceUrl == nil, "\(link)")
            #expect(recipe.sourceName == "Evil", "the credit stays, as text")
            let meal = #"{"meals":[{"idMeal":"7","strMeal":"M","strSource":\#(escaped)}]}"#
            let envelope = try JSONDecoder().decode(MealDBFormat.Envelope<MealDBFormat.Meal>.self, from: Data(meal.utf8))
            #expect(MealDBFormat.recipe(try #require(envelope.meals?.first)).sourceUrl == "https://www.themealdb.com/meal/7", "\(link)")
            // A recipe the cache kept from before the rule, as the API decodes the fetch worker's answer.
            let cached = #"{"id":"x:1","title":"T","ingredients":[],"instructions":[],"sourceName":"S","sourceUrl":\#(escaped),"#
                + #""diets":[],"dishTypes":[],"license":"L","licenseUrl":\#(escaped)}"#
            let decoded = try JSONDecoder().decode(Recipe.self, from: Data(cached.utf8))
            #expect(decoded.sourceUrl == nil && decoded.licenseUrl == nil, "\(link)")
        }
        for link in ["https://www.example.org/recipe?id=1", "HTTP://example.org/", "http://127.0.0.1:8080/x"] {
            #expect(Recipe.webLink(link) == link)
        }
    }

    @Test func spoonacularInstructionsFallBackToTextWithoutHTML() throws {
        let json = #"{"id": 1, "title": "T", "instructions": "<ol><li>Boil.</li><li>Eat.</li></ol>", "vegan": true}"#
        let recipe = SpoonacularFormat.recipe(try JSONDecoder().decode(SpoonacularFormat.Information.self, from: Data(json.utf8)))
        #expect(recipe.instructions == ["Boil.", "Eat."])
        #expect(recipe.diets == ["vegetarian", "vegan"])
        #expect(recipe.sourceName == "Spoonacular")
        #expect(recipe.ingredients.isEmpty)
    }
}
