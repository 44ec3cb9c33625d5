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
}
