import Foundation

/// A unit of measure that converts, so that amounts of one quantity sum whatever they were
/// written in (the grocery list) and a recipe line's unit is told from its ingredient (the catalog import): "500 g" + "1 kg" is 1.5 kg, "2 tbsp" + "1 cup" is 266.162 ml. Factors are the exact
/// definitions (US customary for spoons, cups, pints and fluid ounces, the avoirdupois pound).
package struct MeasureUnit: Sendable, Equatable {
    package enum Quantity: String, Sendable { case mass, volume }

    /// How the unit is shown, whatever spelling it was added in ("grams" is shown "g").
    package let symbol: String
    package let quantity: Quantity
    /// Grams or millilitres in one of this unit.
    package let base: Double

    /// The unit a spelling names, trimmed, in any case, with or without a final dot ("Tbsp.");
    /// nil for units that do not convert ("pinch", "clove", "can").
    package static func named(_ spelling: String) -> MeasureUnit? {
        var key = spelling.trimmingCharacters(in: .whitespaces).lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        return bySpelling[key]
    }

    /// The unit to show `base` grams or millilitres in when the adds used different units.
    package static func display(_ quantity: Quantity, base amount: Double) -> (amount: Double, unit: String) {
        switch quantity {
        case .mass: amount >= 1000 ? (amount / 1000, "kg") : (amount, "g")
        case .volume: amount >= 1000 ? (amount / 1000, "l") : (amount, "ml")
        }
    }

    private static let bySpelling: [String: MeasureUnit] = {
        let units: [(MeasureUnit, [String])] = [
            (MeasureUnit(symbol: "mg", quantity: .mass, base: 0.001), ["mg", "milligram", "milligrams"]),
            (MeasureUnit(symbol: "g", quantity: .mass, base: 1), ["g", "gr", "gram", "grams", "gramme", "grammes"]),
            (MeasureUnit(symbol: "kg", quantity: .mass, base: 1000), ["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"]),
            (MeasureUnit(symbol: "oz", quantity: .mass, base: 28.349523125), ["oz", "ounce", "ounces"]),
            (MeasureUnit(symbol: "lb", quantity: .mass, base: 453.59237), ["lb", "lbs", "pound", "pounds"]),
            (MeasureUnit(symbol: "ml", quantity: .volume, base: 1),
             ["ml", "milliliter", "milliliters", "millilitre", "millilitres"]),
            (MeasureUnit(symbol: "cl", quantity: .volume, base: 10), ["cl", "centiliter", "centiliters", "centilitre", "centilitres"]),
            (MeasureUnit(symbol: "dl", quantity: .volume, base: 100), ["dl", "deciliter", "deciliters", "decilitre", "decilitres"]),
            (MeasureUnit(symbol: "l", quantity: .volume, base: 1000), ["l", "liter", "liters", "litre", "litres"]),
            (MeasureUnit(symbol: "tsp", quantity: .volume, base: 4.92892159375), ["tsp", "tsps", "teaspoon", "teaspoons"]),
            (MeasureUnit(symbol: "tbsp", quantity: .volume, base: 14.78676478125),
             ["tbsp", "tbsps", "tbs", "tbl", "tablespoon", "tablespoons"]),
            (MeasureUnit(symbol: "fl oz", quantity: .volume, base: 29.5735295625), ["fl oz", "fl. oz", "fluid ounce", "fluid ounces"]),
            (MeasureUnit(symbol: "cup", quantity: .volume, base: 236.5882365), ["cup", "cups"]),
            (MeasureUnit(symbol: "pint", quantity: .volume, base: 473.176473), ["pt", "pint", "pints"]),
            (MeasureUnit(symbol: "quart", quantity: .volume, base: 946.352946), ["qt", "quart", "quarts"]),
            (MeasureUnit(symbol: "gallon", quantity: .volume, base: 3785.411784), ["gal", "gallon", "gallons"]),
        ]
        return Dictionary(uniqueKeysWithValues: units.flatMap { unit, spellings in spellings.map { ($0, unit) } })
    }()
}
