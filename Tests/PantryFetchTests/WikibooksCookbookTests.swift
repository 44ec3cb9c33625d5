import Foundation
import Testing
@testable import PantryFetch
import PantryWire

@Suite struct IngredientLineTests {
    @Test(arguments: [
        ("3 cups raw dried chickpeas (or use 7 cups of tinned)", 3.0, "cup", "dried chickpeas"),
        ("1½ pounds (570 g) boneless, skinless chicken thighs, halved", 1.5, "lb", "chicken thighs"),
        ("1 ½ lemons, juiced", 1.5, nil, "lemons"),
        ("4–5 cloves of garlic, minced", 4, "clove", "garlic"),
        ("¾ cup (175 g) freshly squeezed lemon juice", 0.75, "cup", "lemon juice"),
        ("2 Tbsp. olive oil", 2, "tbsp", "olive oil"),
        ("½-ounce (15 g) package dried mushrooms", 0.5, "oz", "package dried mushrooms"),
        ("1 to 2 fl oz brandy", 1, "fl oz", "brandy"),
        ("3/4 teaspoon salt", 0.75, "tsp", "salt"),
        ("500 grams of fresh spinach", 500, "g", "spinach"),
    ] as [(String, Double, String?, String)])
    func measuredLines(_ line: String, _ amount: Double, _ unit: String?, _ name: String) {
        let parsed = IngredientLine.parse(line)
        #expect(parsed.amount == amount && parsed.unit == unit && parsed.name == name, "\(parsed)")
        #expect(parsed.original == line)
    }

    @Test func linesWithoutAnAmountKeepTheirName() {
        #expect(IngredientLine.parse("Salt to taste") == Ingredient(name: "salt", amount: nil, unit: nil, original: "Salt to taste"))
        #expect(IngredientLine.parse("Vegetable oil, for frying").name == "vegetable oil")
        #expect(IngredientLine.parse("(optional)").name == "(optional)", "nothing left to name: the line itself")
    }
}

@Suite struct WikibooksCookbookTests {
    let page = #"""
    {"Cookbook:Soup & Bread's Best": {"title": "Soup &amp; Bread's Best", "category": "Soup recipes",
      "ingredients": ["3&frac12; cups (840 ml) stock", "2 large onions, sliced", "Butter"],
      "steps": ["Melt the butter.<br/>Add onions.", "Simmer."], "servings": "4–6 servings", "time": "1 h, 10 minutes"},
     "Cookbook:Soup and Bread's Best": {"title": "Soup & Bread's Best", "ingredients": ["1 leek"], "steps": ["Cook."]},
     "Cookbook:Empty": {"title": "Empty", "ingredients": [], "steps": ["Nothing."]}}
    """#

    @Test func pagesBecomeCreditedRecipes() throws {
        let imported = try WikibooksCookbook.recipes(fromJSON: Data(page.utf8))
        #expect(imported.skipped == 1 && imported.recipes.count == 2)
        let soup = try #require(imported.recipes.first)
        #expect(soup.id == "catalog:wikibooks-soup-bread-s-best" && soup.title == "Soup & Bread's Best")
        #expect(imported.recipes[1].id == "catalog:wikibooks-soup-bread-s-best-2", "ids never collide")
        #expect(soup.sourceUrl == "https://en.wikibooks.org/wiki/Cookbook:Soup_&_Bread's_Best")
        #expect(soup.license == "CC BY-SA 4.0" && soup.sourceName == "Wikibooks Cookbook")
        #expect(soup.servings == 4 && soup.readyInMinutes == 70 && soup.dishTypes == ["soup"])
        #expect(soup.ingredients.map(\.name) == ["stock", "onions", "butter"])
        #expect(soup.ingredients[0].amount == 3.5 && soup.ingredients[0].unit == "cup")
        #expect(soup.instructions == ["Melt the butter. Add onions.", "Simmer."])
        #expect(soup.diets == [], "stock may be meat stock: nothing is claimed")
    }

    @Test func timesAndServingsAsWikibooksWritesThem() {
        #expect(WikibooksCookbook.minutes("½ hour") == 30)
        #expect(WikibooksCookbook.minutes("15–20 minutes") == 15)
        #expect(WikibooksCookbook.minutes("Prep: 10 minutes<br/>Cooking: 5 minutes per skillet") == 15)
        #expect(WikibooksCookbook.minutes("1½ hours") == 90)
        #expect(WikibooksCookbook.minutes("overnight") == nil)
        #expect(WikibooksCookbook.servings("Varies") == nil && WikibooksCookbook.servings("6–8") == 6)
    }

    @Test func dietsAreClaimedOnlyWhenNoIngredientRulesThemOut() {
        #expect(WikibooksCookbook.diets(["chickpeas", "tahini", "olive oil"]) == ["vegetarian", "vegan"])
        #expect(WikibooksCookbook.diets(["soy milk", "peanut butter", "vegetable stock"]) == ["vegetarian", "vegan"])
        #expect(WikibooksCookbook.diets(["eggs", "flour"]) == ["vegetarian"])
        #expect(WikibooksCookbook.diets(["flour", "chicken thighs"]) == [])
        #expect(WikibooksCookbook.diets(["rice", "beef stock"]) == [])
    }

    @Test func meatFishAndCutsRuleARecipeOutWhereverTheLineNamesThem() {
        for line in ["Flathead fillets", "4 fresh or frozen tilapia fillets, thawed if frozen", "1 kg live, whole crab",
                     "1 eye (2 ½ lb) of round roast, trimmed of extra fat", "1–2 tbsp flour, depending on how much drippings you get.",
                     "2 lb marrow bone", "Duck giblets", "1 smoke-dried catfish, rinsed", "2 tbsp ground crayfish",
                     "3 tsp fish sauce", "1 tsp Worcestershire sauce", "¾ tsp powdered gelatin", "1 can beef consommé",
                     "2 tbsp Thai red curry paste", "2 seasoning cubes", "½ cup grated Parmesan cheese", "2 tablespoons lard or vegetable shortening",
                     "6 cups refried beans"] {
            #expect(WikibooksCookbook.diets([line, "1 onion"]) == [], "\(line)")
        }
    }

    @Test func aPlantWordClearsOnlyTheWordAfterItAndOnlyWhatItCanMake() {
        #expect(WikibooksCookbook.diets(["2 cups chicken or vegetable stock"]) == [], "not the whole line")
        #expect(WikibooksCookbook.diets(["1 can coconut milk", "2 cups vegetable broth", "½ cup cashew cream"]) == ["vegetarian", "vegan"])
        #expect(WikibooksCookbook.diets(["1 can vegetable beef soup"]) == [])
        #expect(WikibooksCookbook.diets(["1 lb coconut chicken"]) == [])
        #expect(WikibooksCookbook.diets(["1 can kidney beans", "oyster mushrooms", "1 pinch cream of tartar"])
            == ["vegetarian", "vegan"], "plants named with an animal's word")
        #expect(WikibooksCookbook.diets(["4 oz goat cheese", "2 quail eggs", "1 sheet puff pastry"]) == ["vegetarian"])
    }

    @Test func theTitleTheCategoryAndTheStepsCountToo() {
        #expect(WikibooksCookbook.diets(title: "Rumaki (Bacon-wrapped Chicken Liver and Water Chestnut)",
                                        ["¼ cup soy sauce", "1 tsp fresh minced ginger", "2 tbsp dry sherry"]) == [])
        #expect(WikibooksCookbook.diets(title: "Chilli Crab", ["2 tbsp chili paste"]) == [])
        #expect(WikibooksCookbook.diets(category: "Seafood recipes", ["1 lb mixed"]) == [])
        #expect(WikibooksCookbook.diets(title: "Onion Confit", ["8 thyme sprigs"], steps: ["Melt the butter in the water."])
            == ["vegetarian"])
        #expect(WikibooksCookbook.diets(title: "Crispy Roast Potatoes", ["5 large potatoes", "¾ cup olive oil"],
                                        steps: ["Roast until golden.", "Chop the parsley."]) == ["vegetarian", "vegan"],
                "roast and chop are cuts only where an ingredient line names them")
    }
}
