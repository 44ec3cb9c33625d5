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
        ("½-ounce (15 g) package dried mushrooms", 0.5, "oz", "dried mushrooms"),
        ("1 to 2 fl oz brandy", 1, "fl oz", "brandy"),
        ("3/4 teaspoon salt", 0.75, "tsp", "salt"),
        ("500 grams of fresh spinach", 500, "g", "spinach"),
    ] as [(String, Double, String?, String)])
    func measuredLines(_ line: String, _ amount: Double, _ unit: String?, _ name: String) {
        let parsed = IngredientLine.parse(line)
        #expect(parsed.amount == amount && parsed.unit == unit && parsed.name == name, "\(parsed)")
        #expect(parsed.original == line)
    }

    @Test("What a page's measures leave before a name is not part of the name (issue 33: ea. broiler/fryer chicken)", arguments: [
        ("1 ea. (3–4 pounds) broiler/fryer chicken", 1.0, nil, "broiler/fryer chicken"),
        ("1 teaspoon or more of salt", 1, "tsp", "salt"),
        ("370 g (2 cups) medium or long-grain rice", 370, "g", "long-grain rice"),
        ("1 cup (240 ml) or 1 part heavy cream", 1, "cup", "heavy cream"),
        ("1-inch piece of ginger, grated", 1, "inch", "ginger"),
        ("3-inch cinnamon stick", nil, nil, "cinnamon stick"),
        ("6 cups sliced, peeled, and cored baking apples", 6, "cup", "baking apples"),
        ("2 medium to large onions (preferably red or yellow), diced", 2, nil, "onions"),
        ("½ a cup of all-purpose flour", 0.5, "cup", "all-purpose flour"),
        ("1 large can plus 1 small can whole tomatoes, crushed by hand", 1, "can", "tomatoes"),
        ("1 tablespoon plus 1½ teaspoons salt", 1.5, "tbsp", "salt"),
        ("3 heaping tbsp capers, drained", 3, "tbsp", "capers"),
        ("1 pinch each of salt, pepper, parsley", 1, "pinch", "salt"),
        ("½ tsp freshly-ground celery seed", 0.5, "tsp", "celery seed"),
        ("6–10+ dried apricots", 6, nil, "dried apricots"),
        ("1 14-oz can whole tomatoes", 1, "can", "tomatoes"),
        ("14 oz (400 g) can of tomatoes with juice", 14, "oz", "tomatoes with juice"),
        ("1 can (8 oz) can chicken broth", 1, "can", "chicken broth"),
        ("2 ea. 2 inch cubes leche flan", 2, nil, "leche flan"),
        ("½ of a can whole corn kernels, drained", 0.5, "can", "corn kernels"),
        ("cup (115 grams) unsalted butter", nil, "cup", "unsalted butter"),
    ] as [(String, Double?, String?, String)])
    func leftoversBeforeTheName(_ line: String, _ amount: Double?, _ unit: String?, _ name: String) {
        let parsed = IngredientLine.parse(line)
        let sameAmount = parsed.amount.map { found in amount.map { abs(found - $0) < 1e-9 } ?? false } ?? (amount == nil)
        #expect(sameAmount && parsed.unit == unit && parsed.name == name, "\(parsed)")
    }

    @Test("A size is not an amount: a 9-inch pie crust is one crust")
    func aSizeIsNotAnAmount() {
        let crust = IngredientLine.parse("9-inch (22 cm) pre-made pie crust")
        #expect(crust.amount == nil && crust.unit == nil && crust.name == "pre-made pie crust", "\(crust)")
    }

    @Test("A unit without an amount is read as a unit: Heavy pinch of sea salt is sea salt")
    func aUnitWithoutAnAmount() {
        #expect(IngredientLine.parse("Heavy pinch of sea salt").name == "sea salt")
        #expect(IngredientLine.parse("A generous handful of sugar").name == "sugar")
        #expect(IngredientLine.parse("Cloves, whole").name == "cloves", "no of: the word is the ingredient")
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
        #expect(imported.recipes.count == 2)
        #expect(imported.rejected == [WikibooksCookbook.Reject(page: "Cookbook:Empty", line: nil, reason: "no ingredient")])
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

    @Test("Wiki markup is stripped: quotes, links, templates, footnotes with their text")
    func markupIsStripped() {
        let caesar = #"1 head Romaine lettuce, roughly chopped<ref group="N">chopping will '''''not''''' brown them.</ref>"#
        #expect(WikiMarkup.plainText(caesar) == "1 head Romaine lettuce, roughly chopped")
        #expect(WikiMarkup.plainText("Add the ''agnolotti'' and a [[Cookbook:Rice|rice]] or [[salt]].") == "Add the agnolotti and a rice or salt.")
        #expect(WikiMarkup.plainText("Peel.<ref></ref><ref>{{Cite web |title=How {{nested}} To") == "Peel.")
        #expect(WikiMarkup.plainText("thumbBlend the pepper.{{Recipe summary") == "Blend the pepper.")
        #expect(WikiMarkup.plainText("Release ([https://www.youtube.com/watch?v=x see how]).") == "Release (see how).")
        #expect(WikiMarkup.plainText("* Put on the lid &amp; wait.") == "Put on the lid & wait.")
        #expect(WikiMarkup.plainText("1 large white onion<nowiki/>s") == "1 large white onions")
        #expect(WikiMarkup.plainText("&#189; cup &#x2153; tsp") == "½ cup ⅓ tsp")
    }

    @Test("Headings among the ingredient lines are rejected with their reason, and the recipe kept")
    func headingsAreRejected() throws {
        let page = #"{"Cookbook:Pie": {"title": "Pie", "ingredients": ["1 crust", "Optional:", "Cream"], "steps": ["Bake.", "Serve."]}}"#
        let imported = try WikibooksCookbook.recipes(fromJSON: Data(page.utf8))
        #expect(imported.recipes.first?.ingredients.map(\.name) == ["crust", "cream"])
        #expect(imported.rejected == [WikibooksCookbook.Reject(page: "Cookbook:Pie", line: "Optional:", reason: "a heading, not an ingredient")])
    }

    @Test("Without the page's own time, the times its steps state are summed, unless one cannot be known")
    func timesFromSteps() {
        #expect(WikibooksCookbook.minutes(inSteps: ["Simmer for 3–5 minutes.", "Cook for an additional 5 minutes."]) == 8)
        #expect(WikibooksCookbook.minutes(inSteps: ["Roast at 325 °F for 1 ½–2 hours.", "Simmer about 5 minutes."]) == 95)
        #expect(WikibooksCookbook.minutes(inSteps: ["Roast for 20 minutes per 450g (1 lb) plus 30 minutes."]) == nil)
        #expect(WikibooksCookbook.minutes(inSteps: ["Marinate overnight.", "Grill 10 minutes."]) == nil)
        #expect(WikibooksCookbook.minutes(inSteps: ["Deep-fry until golden (less than 2 minutes)."]) == nil)
        #expect(WikibooksCookbook.minutes(inSteps: ["Assemble like a normal sandwich."]) == nil)
        #expect(WikibooksCookbook.statedMinutes("1 hour plus chilling") == nil)
        #expect(WikibooksCookbook.statedMinutes("Prep: 30 minutes<br>Cooking: ~30 minutes") == 60)
    }

    @Test func timesAndServingsAsWikibooksWritesThem() {
        #expect(WikibooksCookbook.minutes("½ hour") == 30)
        #expect(WikibooksCookbook.minutes("15–20 minutes") == 15)
        #expect(WikibooksCookbook.minutes("Prep: 10 minutes<br/>Cooking: 5 minutes per skillet") == 15)
        #expect(WikibooksCookbook.minutes("1½ hours") == 90)
        #expect(WikibooksCookbook.minutes("overnight") == nil)
        #expect(WikibooksCookbook.servings("Varies") == nil && WikibooksCookbook.servings("6–8") == 6)
        #expect(WikibooksCookbook.servings("Serves 1") == 1 && WikibooksCookbook.servings("about 6") == 6 && WikibooksCookbook.servings("~80") == 80)
        #expect(WikibooksCookbook.servings("About 1 cup or 8 oz (250 g)") == nil && WikibooksCookbook.servings("About 2 litres") == nil)
        #expect(WikibooksCookbook.servings(inSteps: ["Serve with wine; serves 4, or two twice."]) == 4)
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
