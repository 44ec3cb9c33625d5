import Foundation
import PantryDomain

/// The small vocabulary search matches food names with: spellings folded to one (case, accents,
/// plurals, regional names), and the words that make a name another food than the one it
/// mentions ("chicken broth" is not chicken, "black pepper" is not a pepper). Measured on the
/// 3,129 imported recipes: "chilies" found 6 where "chili" found 100, "jalapeno" 3 where
/// "jalapeño" 28, "courgette" 3 where "zucchini" 23; chicken broth counted as chicken.
enum FoodVocabulary {
    /// `text` as folded words: lowercase, accents dropped, each word singular, regional names
    /// as one ("courgettes" -> "zucchini", "jalapeños" -> "jalapeno").
    static func words(_ text: String) -> [String] {
        let plain = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var words = plain.split { !($0.isLetter || $0.isNumber) }.map { singular(String($0)) }
        for (phrase, canonical) in phrases {
            var start = 0
            while start + phrase.count <= words.count {
                if words[start..<(start + phrase.count)].elementsEqual(phrase) {
                    words.replaceSubrange(start..<(start + phrase.count), with: canonical)
                    start += canonical.count
                } else {
                    start += 1
                }
            }
        }
        return words.map { synonyms[$0] ?? $0 }
    }

    /// A word's singular: the irregular ones from a table, the rest by `IngredientName`'s rule.
    static func singular(_ word: String) -> String {
        irregular[word] ?? IngredientName.singular(word)
    }

    /// Plurals the simple rule gets wrong ("cookies" is not "cooky", "chilies" not "chily").
    private static let irregular: [String: String] = [
        "cookies": "cookie", "brownies": "brownie", "pies": "pie", "smoothies": "smoothie", "veggies": "veggie",
        "chilies": "chili", "chillies": "chili", "chilis": "chili", "chiles": "chili", "chilli": "chili", "chile": "chili",
        "leaves": "leaf", "loaves": "loaf", "halves": "half", "calves": "calf", "knives": "knife",
        "molasses": "molasses", "hummus": "hummus", "couscous": "couscous", "asparagus": "asparagus",
        "anchovies": "anchovy", "cherries": "cherry", "berries": "berry", "mice": "mouse", "geese": "goose",
        "octopuses": "octopus", "tomatoes": "tomato", "potatoes": "potato", "mangoes": "mango",
        "dishes": "dish", "lentils": "lentil", "radishes": "radish", "sandwiches": "sandwich",
        "peaches": "peach", "squashes": "squash", "chickpeas": "chickpea", "peas": "pea", "oats": "oat",
        "grits": "grits", "greens": "green", "noodles": "noodle", "sprouts": "sprout",
    ]

    /// One name for a food known by several (regional English, other languages in English recipes).
    private static let synonyms: [String: String] = [
        "courgette": "zucchini", "aubergine": "eggplant", "brinjal": "eggplant", "baingan": "eggplant",
        "coriander": "cilantro", "garbanzo": "chickpea", "prawn": "shrimp", "beetroot": "beet", "arugula": "rocket",
        "cornflour": "cornstarch", "swede": "rutabaga", "yoghurt": "yogurt",
    ]

    /// Names of more than one word folded to one: "spring onions" and "scallions" are green onions.
    private static let phrases: [([String], [String])] = [
        (["spring", "onion"], ["green", "onion"]),
        (["scallion"], ["green", "onion"]),
        (["capsicum"], ["bell", "pepper"]),
        (["icing", "sugar"], ["powdered", "sugar"]),
        (["confectioner", "sugar"], ["powdered", "sugar"]),
        (["bicarbonate", "of", "soda"], ["baking", "soda"]),
        (["corn", "starch"], ["cornstarch"]),
        (["garbanzo", "bean"], ["chickpea"]),
        (["egg", "plant"], ["eggplant"]),
    ]

    /// Words after a food's name that make the line another food: chicken broth, beef stock,
    /// garlic powder, tomato paste, rice flour, chicken eggs, egg noodles.
    static let derivedHeads: Set<String> = [
        "broth", "stock", "bouillon", "consomme", "soup", "powder", "flake", "sauce", "seasoning", "flour", "vinegar",
        "wine", "noodle", "cereal", "extract", "essence", "oil", "cube", "gravy", "fat", "dripping", "granule", "salt",
        "syrup", "starch", "paste", "ketchup", "milk", "butter", "egg", "seed", "liqueur", "jam", "jelly", "pudding",
        "cracker", "mix", "base", "concentrate", "bran",
    ]

    /// The same for one food: cream cheese is cheese, cream of mushroom soup a soup, a banana
    /// pepper a pepper.
    static let derivedHeadsOf: [String: Set<String>] = ["cream": ["cheese", "of"], "goat": ["cheese", "milk"], "banana": ["pepper"]]

    /// Words before a food's name that make the line another food: black pepper is a spice, not
    /// a pepper; coconut milk is not milk; ground coriander is a spice, not the leaves.
    static let derivedModifiers: [String: Set<String>] = [
        "pepper": ["black", "white", "cayenne", "lemon", "ground", "pink", "szechuan", "sichuan", "peppercorn", "jamaican"],
        "milk": ["coconut", "almond", "soy", "oat", "rice", "condensed", "evaporated", "cashew"],
        "butter": ["peanut", "almond", "cashew", "apple", "cocoa", "shea", "nut"],
        "cream": ["sour", "ice", "coconut", "tartar"],
        "cilantro": ["ground"],
        "sugar": ["brown", "powdered", "palm", "coconut"],
        "rice": ["puffed"],
    ]

    /// How much a typed food says about the dish it is in: the protein is what a dish is
    /// usually named and planned after (chicken fried rice, with rice and garlic), a seasoning
    /// (garlic, herbs, spices, citrus) flavours many dishes. By the name's last word: ground
    /// cumin is cumin, chicken thigh is not chicken (it is a cut, and weighs as a food).
    static func weight(of food: [String]) -> Int {
        guard let head = food.last else { return 0 }
        return proteins.contains(head) ? 3 : seasonings.contains(head) ? 1 : 2
    }

    /// Folded, singular (prawn is shrimp).
    private static let proteins: Set<String> = [
        "chicken", "beef", "pork", "lamb", "mutton", "goat", "veal", "turkey", "duck", "venison", "rabbit", "fish",
        "salmon", "tuna", "cod", "haddock", "trout", "sardine", "mackerel", "anchovy", "shrimp", "crab", "lobster",
        "mussel", "clam", "oyster", "scallop", "squid", "octopus", "egg", "tofu", "tempeh", "sausage", "bacon", "ham",
    ]

    private static let seasonings: Set<String> = [
        "garlic", "ginger", "basil", "parsley", "cilantro", "dill", "thyme", "rosemary", "oregano", "mint", "sage",
        "bay", "tarragon", "chive", "marjoram", "cumin", "paprika", "cinnamon", "nutmeg", "turmeric", "cardamom",
        "clove", "saffron", "vanilla", "allspice", "spice", "herb", "seasoning", "powder", "flake", "lemon", "lime",
        "zest", "vinegar", "mustard",
    ]

    /// Words that describe a recipe rather than name what is in it: "quick breakfast" found
    /// nothing when every word had to be in a title or an ingredient.
    static let quickWords: Set<String> = ["quick", "easy", "fast", "simple", "speedy"]

    /// Minutes a quick recipe takes at most.
    static let quickMinutes = 30
}
