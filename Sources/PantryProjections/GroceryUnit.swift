import Foundation

/// A unit the grocery list can convert, so that amounts of one quantity sum whatever they were
/// written in: "500 g" + "1 kg" is 1.5 kg, "2 tbsp" + "1 cup" is 266.162 ml. Factors are the exact
/// definitions (US customary for spoons, cups, pints and fluid ounces, the avoirdupois pound).
struct GroceryUnit: Sendable, Equatable {
    enum Quantity: String, Sendable { case mass, volume }

    /// How the unit is shown, whatever spelling it was added in ("grams" is shown "g").
    let symbol: String
    let quantity: Quantity
    /// Grams or millilitres in one of this unit.
    let base: Double

    /// The unit a spelling names, trimmed, in any case, with or without a final dot ("Tbsp.");
    /// nil for units that do not convert ("pinch", "clove", "can").
    static func named(_ spelling: String) -> GroceryUnit? {
        var key = spelling.trimmingCharacters(in: .whitespaces).lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        return bySpelling[key]
    }

    /// The unit to show `base` grams or millilitres in when the adds used different units.
    static func display(_ quantity: Quantity, base amount: Double) -> (amount: Double, unit: String) {
        switch quantity {
        case .mass: amount >= 1000 ? (amount / 1000, "kg") : (amount, "g")
        case .volume: amount >= 1000 ? (amount / 1000, "l") : (amount, "ml")
        }
    }

    private static let bySpelling: [String: GroceryUnit] = {
        let units: [(GroceryUnit, [String])] = [
            (GroceryUnit(symbol: "mg", quantity: .mass, base: 0.001), ["mg", "milligram", "milligrams"]),
            (GroceryUnit(symbol: "g", quantity: .mass, base: 1), ["g", "gr", "gram", "grams", "gramme", "grammes"]),
            (GroceryUnit(symbol: "kg", quantity: .mass, base: 1000), ["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"]),
            (GroceryUnit(symbol: "oz", quantity: .mass, base: 28.349523125), ["oz", "ounce", "ounces"]),
            (GroceryUnit(symbol: "lb", quantity: .mass, base: 453.59237), ["lb", "lbs", "pound", "pounds"]),
            (GroceryUnit(symbol: "ml", quantity: .volume, base: 1),
             ["ml", "milliliter", "milliliters", "millilitre", "millilitres"]),
            (GroceryUnit(symbol: "cl", quantity: .volume, base: 10), ["cl", "centiliter", "centiliters", "centilitre", "centilitres"]),
            (GroceryUnit(symbol: "dl", quantity: .volume, base: 100), ["dl", "deciliter", "deciliters", "decilitre", "decilitres"]),
            (GroceryUnit(symbol: "l", quantity: .volume, base: 1000), ["l", "liter", "liters", "litre", "litres"]),
            (GroceryUnit(symbol: "tsp", quantity: .volume, base: 4.92892159375), ["tsp", "tsps", "teaspoon", "teaspoons"]),
            (GroceryUnit(symbol: "tbsp", quantity: .volume, base: 14.78676478125),
             ["tbsp", "tbsps", "tbs", "tbl", "tablespoon", "tablespoons"]),
            (GroceryUnit(symbol: "fl oz", quantity: .volume, base: 29.5735295625), ["fl oz", "fl. oz", "fluid ounce", "fluid ounces"]),
            (GroceryUnit(symbol: "cup", quantity: .volume, base: 236.5882365), ["cup", "cups"]),
            (GroceryUnit(symbol: "pint", quantity: .volume, base: 473.176473), ["pt", "pint", "pints"]),
            (GroceryUnit(symbol: "quart", quantity: .volume, base: 946.352946), ["qt", "quart", "quarts"]),
            (GroceryUnit(symbol: "gallon", quantity: .volume, base: 3785.411784), ["gal", "gallon", "gallons"]),
        ]
        return Dictionary(uniqueKeysWithValues: units.flatMap { unit, spellings in spellings.map { ($0, unit) } })
    }()
}
