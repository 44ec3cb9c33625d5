import Foundation
import PantryDomain

/// Which diets a Wikibooks page may claim. Wikibooks labels none, so they are read from the page's text.
///
/// The reading errs towards "not vegetarian": a vegetarian who trusts a wrong "vegetarian" eats meat,
/// while a vegetarian dish not called so is only a recipe missed. So it reads everything the page says,
/// not the parsed ingredient names (the parser drops words: "1 kg live, whole crab"), and any word that
/// may name meat, fish or an animal fat rules the page out wherever it stands: in the title ("Rumaki
/// (Bacon-wrapped Chicken Liver ...)" lists neither in its ingredients), the category, an ingredient line
/// ("chicken or vegetable stock", "Flathead fillets") or a step ("melt the butter" with no butter listed).
/// A plant word clears only the word right after it, and only a word it can make: "vegetable stock" and
/// "coconut milk" are plants, "vegetable beef soup" and "coconut chicken" are not. Checked against a
/// hand-labelled sample of the real pages in `WikibooksDietSampleTests`. (Spoonacular's and TheMealDB's
/// recipes keep their upstream's own labels, through `Diet.normalize`.)
extension WikibooksCookbook {
    static func diets(title: String = "", category: String? = nil, _ lines: [String], steps: [String] = []) -> [String] {
        var vegan = true
        let texts = [(title, false), (category ?? "", false)] + lines.map { ($0, true) } + steps.map { ($0, false) }
        for (text, isIngredientLine) in texts {
            let words = dietWords(text)
            for (index, word) in words.enumerated() {
                let before = index > 0 ? words[index - 1] : ""
                if meatFree.contains(before)
                    || madeFromPlants.contains(where: { $0.makers.contains(before) && $0.products.contains(word) }) {
                    continue
                }
                if !isIngredientLine && cutsNamedOnlyInLines.contains(word) { continue }
                if notVegetarian.contains(word) || word.contains("fish") || notVegetarianPairs.contains(before + " " + word) {
                    return []
                }
                if notVegan.contains(word) { vegan = false }
            }
        }
        return vegan ? ["vegetarian", "vegan"] : ["vegetarian"]
    }

    /// Meat, poultry, game, offal and their cuts; fish and seafood (and any word with "fish" in it:
    /// catfish, stockfish, shellfish); stock and fats that may be animal unless a plant word says
    /// otherwise; sauces and pastes made with fish; gelatine; cheeses whose rules require animal rennet.
    private static let notVegetarian = wordSet("""
        meat meatball meatloaf forcemeat crabmeat mincemeat beef veal pork ham bacon lardon sausage salami chorizo chourico
        pepperoni prosciutto pancetta guanciale speck mortadella bologna frankfurter wiener hotdog bratwurst kielbasa
        andouille longganisa pastrami biltong jerky spam hamburger cheeseburger mince steak cutlet escalope schnitzel kibbeh
        carbonara refried pate foie
        chicken hen capon rooster poussin fowl poultry turkey duck duckling goose geese quail pheasant partridge grouse
        pigeon squab lamb mutton goat cow ox calf pig hog boar venison deer elk moose bison rabbit hare squirrel iguana
        muskrat frog turtle snail escargot ant worm caterpillar mopane grasshopper insect musk
        liver kidney tripe offal giblet gizzard sweetbread tongue oxtail trotter hock feet marrow bone carcass blood placenta
        shaki ponmo kpomo kanda
        roast chop rib loin tenderloin sirloin ribeye brisket shank shoulder flank rump chuck belly butt jowl leg thigh wing
        drumstick breast fillet filet joint
        jus dripping gravy stock broth bouillon consomme fumet veloute espagnole demi maggi knorr oxo
        lard suet tallow schmaltz fat shortening gelatin gelatine aspic isinglass jello jelly marshmallow rennet collagen
        carmine cochineal
        anchovy tuna salmon cod haddock hake pollock pollack whiting sardine pilchard sprat mackerel herring kipper trout
        tilapia flathead snapper halibut bass perch pike eel carp bream sole plaice flounder turbot brill dory grouper
        mullet barramundi mahi marlin sturgeon shad smelt whitebait lox gravlax bacalao bacalhau baccala bonito
        katsuobushi dashi hondashi albacore ahi coho bangus bonga roe caviar ikura tobiko nigiri sashimi
        shrimp prawn scampi langoustine lobster crab crayfish crawfish krill clam mussel oyster scallop cockle whelk
        winkle periwinkle conch abalone squid calamari octopus cuttlefish urchin seafood surimi
        worcestershire caesar bagoong alamang belacan terasi trassi garum nuoc kimchi
        pastry shortcrust pie dressing ravioli tortellini cappelletti agnolotti
        parmesan parmigiano reggiano grana pecorino romano gorgonzola gruyere emmental emmentaler comte manchego roquefort
        pesto alfredo
        """)

    /// Two words that together may hide meat or fish: Thai curry pastes are made with shrimp paste,
    /// soup mixes and seasoning cubes with chicken, bottled Italian dressing with cheese.
    private static let notVegetarianPairs: Set<String> = [
        "hot dog", "nam pla", "curry paste", "soup mix", "seasoning cube", "italian dressing",
    ]

    /// Egg, dairy, honey, and what is usually made with them.
    private static let notVegan = wordSet("""
        egg yolk albumen meringue mayonnaise mayo aioli custard eggnog hollandaise bearnaise quiche omelette omelet
        frittata souffle mousse tiramisu wonton
        milk buttermilk milkshake milkfat butter butterfat buttercream butterscotch beurre ghee smen niter cream creamer
        creme fraiche crema bechamel cheese cheesecake cheesy curd paneer khoa malai kulfi raita tzatziki yogurt
        yoghurt kefir quark whey casein caseinate lactose ricotta mozzarella cheddar feta brie camembert gouda edam
        halloumi mascarpone provolone fontina asiago havarti colby monterey monterrey velveeta boursin queso leche lassi
        dahi labneh ayran sirene kashkaval ackawi ayib ranch
        honey mead beeswax chocolate margarine graham cookie cooky biscuit brioche croissant ladyfinger savoiardi pudding
        toffee caramel fudge ovaltine ovomaltine nesquik sherbet gelato ambergris
        """)

    /// Words that clear the next word, whatever it is: "vegan cheese", "vegetarian sausage", "seitan bratwurst".
    private static let meatFree = wordSet("vegan vegetarian veggie meatless seitan quorn")

    /// Plant words and the animal words they make of plants when right before them.
    private static let madeFromPlants: [(makers: Set<String>, products: Set<String>)] = [
        // "soy milk", "peanut butter", "coconut cream", "cashew cheese"
        (wordSet("""
            soy soya almond oat coconut rice peanut nut cashew hazelnut macadamia pistachio walnut pecan sesame sunflower
            seed hemp flax chia cocoa cacao shea plant
            """),
         wordSet("milk butter cream creamer yogurt yoghurt cheese curd mayonnaise mayo")),
        // "vegetable stock", "mushroom gravy", "kombu dashi", "vegetable shortening"
        (wordSet("vegetable mushroom shiitake porcini kombu kelp seaweed miso"),
         wordSet("stock broth bouillon consomme dashi gravy suet fat shortening gelatin gelatine")),
    ]

    /// Cuts and dishes named as nouns in the ingredient lines but used otherwise in the title and steps
    /// ("Roast Potatoes", "chop the onion", "fat" for the oil in the pan, "burn your tongue"): the lines
    /// still rule a page out with them.
    private static let cutsNamedOnlyInLines = wordSet("""
        roast chop dripping joint fat tongue belly butt feet leg shoulder speck pie pastry dressing ravioli tortellini
        """)

    /// Phrases read as what they are before the words are checked: plants and other things named with an
    /// animal's word ("kidney bean", "oyster mushroom", "cream of tartar", "low fat"), the animal food
    /// named with a plant's or a farm animal's ("goat cheese" is cheese, "puff pastry" butter, "bean dip"
    /// refried beans, which are often made with lard).
    private static let readAs: [String: String] = [
        "kidney bean": "bean", "butter bean": "bean", "romano bean": "bean", "pigeon pea": "pea", "crab apple": "apple",
        "oyster mushroom": "mushroom", "chicken of the woods": "mushroom", "hen of the woods": "mushroom",
        "celery rib": "celery", "rib celery": "celery", "rib of celery": "celery", "blood orange": "orange",
        "egg plant": "eggplant", "lamb's lettuce": "lettuce", "lamb lettuce": "lettuce", "beef tomato": "tomato",
        "goat pepper": "pepper", "musk melon": "melon", "vegetable marrow": "squash", "crooked neck": "",
        "coconut meat": "coconut", "nut meat": "nut", "flax egg": "flax", "chia egg": "chia",
        "cream of tartar": "tartar", "cream of coconut": "coconut", "apple butter": "jam", "duck sauce": "plum sauce",
        "oyster cracker": "cracker", "bean curd": "tofu", "stock pot": "pot", "condensation dripping": "",
        "low fat": "", "reduced fat": "", "non fat": "", "full fat": "", "fat free": "", "egg free": "", "dairy free": "",
        "meat free": "", "non dairy": "",
        "apple jelly": "jam", "grape jelly": "jam", "currant jelly": "jam", "redcurrant jelly": "jam", "mint jelly": "jam",
        "pepper jelly": "jam", "quince jelly": "jam", "royal jelly": "honey", "jell o": "jello",
        "marshmallow creme": "egg", "marshmallow fluff": "egg", "unsweetened chocolate": "cocoa",
        "pastry flour": "flour", "pastry brush": "brush", "pastry cream": "cream", "choux pastry": "egg",
        "puff pastry": "butter", "filo pastry": "filo", "phyllo pastry": "filo",
        "pie filling": "filling", "pie spice": "spice", "pie dish": "dish", "pie plate": "dish", "pie pan": "pan",
        "pie tin": "tin",
        "duck egg": "egg", "quail egg": "egg", "goose egg": "egg", "chicken egg": "egg",
        "cow milk": "milk", "cow's milk": "milk", "goat milk": "milk", "goat's milk": "milk", "sheep milk": "milk",
        "sheep's milk": "milk", "camel milk": "milk", "goat cheese": "cheese", "goat's cheese": "cheese",
        "sheep cheese": "cheese", "sheep's cheese": "cheese", "buffalo mozzarella": "mozzarella", "niter kibbeh": "ghee",
        "thousand island": "mayonnaise", "bean dip": "refried beans", "black pudding": "blood", "white pudding": "pork",
    ]

    private static let phrasesByFirstWord: [String: [(phrase: [String], readAs: [String])]] = {
        var phrases: [String: [(phrase: [String], readAs: [String])]] = [:]
        for (phrase, meaning) in readAs {
            let words = IngredientName.words(phrase)
            phrases[words[0], default: []].append((words, IngredientName.words(meaning)))
        }
        return phrases.mapValues { $0.sorted { $0.phrase.count > $1.phrase.count } }
    }()

    /// The text's words as `IngredientName` compares them (lowercase, singular), accents folded
    /// ("consommé"), its phrases read as what they are.
    static func dietWords(_ text: String) -> [String] {
        let folded = text.utf8.contains { $0 >= 0x80 } ? text.folding(options: .diacriticInsensitive, locale: nil) : text
        let words = IngredientName.words(folded)
        var read: [String] = []
        read.reserveCapacity(words.count)
        var index = 0
        while index < words.count {
            let match = phrasesByFirstWord[words[index]]?.first { candidate in
                words[index...].starts(with: candidate.phrase)
            }
            if let match {
                read += match.readAs
                index += match.phrase.count
            } else {
                read.append(words[index])
                index += 1
            }
        }
        return read
    }

    private static func wordSet(_ list: String) -> Set<String> {
        Set(list.split(whereSeparator: \.isWhitespace).map { IngredientName.singular(String($0)) })
    }
}
