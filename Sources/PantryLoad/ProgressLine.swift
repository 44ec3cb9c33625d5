import Foundation

/// One line of progress, redrawn in place on stderr:
/// `users [#############.................]  42% 4200/10000  1234/s`.
package enum ProgressLine {
    package static let barWidth = 30

    package static func render(label: String, done: Int, total: Int, perSecond: Double, unit: String = "") -> String {
        let fraction = total > 0 ? min(Double(done) / Double(total), 1) : 1
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let suffix = unit.isEmpty ? "" : " \(unit)"
        return String(format: "%@ [%@] %3.0f%% %d/%d%@  %.0f/s", label, bar, fraction * 100, done, total, suffix, perSecond)
    }
}
