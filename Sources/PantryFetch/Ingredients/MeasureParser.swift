/// Splits a free-text measure ("1 1/2 cups", "200g", "½ tsp", "To taste") into an
/// amount and a unit. Text without a leading number has neither. Numbers are read as an
/// ingredient line reads them (`IngredientLine.number`): one table of fractions for every source.
enum MeasureParser {
    static func parse(_ measure: String) -> (amount: Double?, unit: String?) {
        var rest = Substring(measure.trimmingCharacters(in: .whitespaces))
        var amount: Double?
        while let (value, remainder) = IngredientLine.number(rest) {
            amount = (amount ?? 0) + value
            rest = remainder.drop(while: \.isWhitespace)
        }
        guard let amount else { return (nil, nil) }
        return (amount, nonEmpty(String(rest)))
    }
}
