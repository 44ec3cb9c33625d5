/// Splits a free-text measure ("1 1/2 cups", "200g", "½ tsp", "To taste") into an
/// amount and a unit. Text without a leading number has neither.
enum MeasureParser {
    private static let vulgarFractions: [Character: Double] = [
        "½": 0.5, "⅓": 1.0 / 3, "⅔": 2.0 / 3, "¼": 0.25, "¾": 0.75, "⅛": 0.125,
    ]

    static func parse(_ measure: String) -> (amount: Double?, unit: String?) {
        var rest = Substring(measure.trimmingCharacters(in: .whitespaces))
        var amount: Double?
        while let (value, remainder) = leadingNumber(rest) {
            amount = (amount ?? 0) + value
            rest = remainder.drop(while: \.isWhitespace)
        }
        guard let amount else { return (nil, nil) }
        return (amount, nonEmpty(String(rest)))
    }

    /// A leading "3", "1.5", "3/4" or "½", and what follows it.
    private static func leadingNumber(_ text: Substring) -> (Double, Substring)? {
        if let first = text.first, let fraction = vulgarFractions[first] {
            return (fraction, text.dropFirst())
        }
        let digits = text.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "/") }
        guard let firstChar = digits.first, firstChar.isNumber else { return nil }
        let rest = text.dropFirst(digits.count)
        let parts = digits.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return Double(digits).map { ($0, rest) }
        case 2:
            guard let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 else { return nil }
            return (numerator / denominator, rest)
        default:
            return nil
        }
    }
}
