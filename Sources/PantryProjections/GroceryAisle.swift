/// The aisle a grocery item is found in, so the list reads in the order a shop is walked.
///
/// The aisle names are Spoonacular's (the `aisle` of each of its `extendedIngredients`); the
/// ingredient-to-aisle table below is Pantry's own, written by hand to cover every ingredient of the
/// bundled catalog and the common staples (a test holds it to the catalog). An ingredient is looked up
/// by its key's longest ending phrase in the table ("red wine vinegar" is a vinegar, "peanut butter"
/// not a butter), then by any of its words from the last ("egg white" is an egg).
package enum GroceryAisle: Int, Sendable, CaseIterable, Comparable {
    case produce, meat, seafood, dairy, cheese, bakery, baking, pastaAndRice, cannedAndJarred, ethnicFoods,
         condiments, oilAndVinegar, spices, nutButtersAndHoney, nuts, driedFruits, cereal, frozen, beverages,
         alcoholicBeverages, other

    package var name: String {
        switch self {
        case .produce: "Produce"
        case .meat: "Meat"
        case .seafood: "Seafood"
        case .dairy: "Milk, Eggs, Other Dairy"
        case .cheese: "Cheese"
        case .bakery: "Bakery/Bread"
        case .baking: "Baking"
        case .pastaAndRice: "Pasta and Rice"
        case .cannedAndJarred: "Canned and Jarred"
        case .ethnicFoods: "Ethnic Foods"
        case .condiments: "Condiments"
        case .oilAndVinegar: "Oil, Vinegar, Salad Dressing"
        case .spices: "Spices and Seasonings"
        case .nutButtersAndHoney: "Nut butters, Jams, and Honey"
        case .nuts: "Nuts"
        case .driedFruits: "Dried Fruits"
        case .cereal: "Cereal"
        case .frozen: "Frozen"
        case .beverages: "Beverages"
        case .alcoholicBeverages: "Alcohol"
        case .other: "Other"
        }
    }

    package static func < (a: GroceryAisle, b: GroceryAisle) -> Bool { a.rawValue < b.rawValue }

    /// The aisle of an item key (singular lowercase words, `IngredientName.key`).
    package static func of(item key: String) -> GroceryAisle {
        let words = key.split(separator: " ")
        for start in words.indices {
            if let aisle = table[words[start...].joined(separator: " ")] { return aisle }
        }
        return words.reversed().lazy.compactMap { table[String($0)] }.first ?? .other
    }

    private static let table: [String: GroceryAisle] = {
        let aisles: [GroceryAisle: [String]] = [
            .produce: ["apple", "arugula", "asparagus", "avocado", "banana", "basil", "bean sprout", "bell pepper", "berry",
                       "blueberry", "bok choy", "broccoli", "cabbage", "carrot", "cauliflower", "celery", "chili pepper",
                       "chive", "cilantro", "coleslaw", "coriander", "corn on the cob", "courgette", "cucumber", "dill",
                       "eggplant", "galangal", "garlic", "ginger", "grape", "green bean", "herb", "kaffir lime leaf", "kale",
                       "leek", "lemon", "lemongrass", "lettuce", "lime", "mango", "mint", "mushroom", "onion", "orange",
                       "papaya", "parsley", "pea", "peach", "pear", "potato", "pumpkin", "radish", "raspberry", "rosemary",
                       "sage", "scallion", "shallot", "spinach", "squash", "strawberry", "sweetcorn", "thyme", "tomato",
                       "zucchini"],
            .meat: ["bacon", "beef", "chicken", "chorizo", "ham", "lamb", "mince", "pork", "sausage", "turkey", "veal"],
            .seafood: ["anchovy", "clam", "cod", "crab", "fish", "mussel", "prawn", "salmon", "scallop", "shrimp", "squid",
                       "tuna"],
            .dairy: ["almond milk", "butter", "buttermilk", "cream", "egg", "ghee", "milk", "oat milk", "soy milk", "yogurt",
                     "yoghurt"],
            .cheese: ["cheddar", "cheese", "feta", "gruyere", "halloumi", "mascarpone", "mozzarella", "paneer", "parmesan",
                      "pecorino", "queso", "ricotta"],
            .bakery: ["bagel", "baguette", "bread", "breadcrumb", "bun", "ladyfinger", "pita", "roll", "tortilla"],
            .baking: ["baking powder", "baking soda", "chocolate", "cocoa", "coconut flake", "cornmeal", "cornstarch",
                      "digestive biscuit", "flour", "gelatin", "nutritional yeast", "sugar", "vanilla extract", "yeast"],
            .pastaAndRice: ["bulgur", "couscous", "dried chickpea", "lasagne", "lentil", "linguine", "macaroni", "noodle",
                            "pasta", "penne", "quinoa", "rice", "spaghetti"],
            .cannedAndJarred: ["baked bean", "bean", "broth", "canned tomato", "canned tuna", "caper", "chickpea",
                               "coconut milk", "olive", "paste", "salsa", "stock"],
            .ethnicFoods: ["kombu", "miso", "spring roll wrapper", "tofu", "wakame"],
            .condiments: ["ketchup", "mayonnaise", "mirin", "mustard", "sauce", "tahini", "tamari"],
            .oilAndVinegar: ["oil", "vinaigrette", "vinegar"],
            .spices: ["bay leaf", "cardamom", "cayenne pepper", "chili flake", "chili powder", "cinnamon", "clove",
                      "coriander seed", "cumin", "cumin seed", "garam masala", "garlic powder", "nutmeg", "oregano", "paprika", "pepper",
                      "saffron", "salt", "star anise", "sumac", "turmeric", "vanilla bean"],
            .nutButtersAndHoney: ["honey", "jam", "maple syrup", "peanut butter"],
            .nuts: ["almond", "cashew", "hazelnut", "nut", "peanut", "pistachio", "seed", "walnut"],
            .driedFruits: ["dried apricot", "raisin"],
            .cereal: ["granola", "oat"],
            .frozen: ["frozen pea", "ice", "pastry"],
            .beverages: ["coffee", "juice", "tea", "water"],
            .alcoholicBeverages: ["beer", "wine"],
        ]
        return Dictionary(uniqueKeysWithValues: aisles.flatMap { aisle, keys in keys.map { ($0, aisle) } })
    }()
}
