import Foundation

/// `pantry loadtest compare A.json B.json`: two runs side by side, each figure of B as a ratio of A's.
package enum LoadComparison {
    package static func table(_ a: LoadResult, _ b: LoadResult) -> String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        func ratio(_ x: Double, _ y: Double) -> String { x > 0 ? f(y / x, 2) + "x" : "-" }
        var lines = [
            "A: \(a.startedAt ?? "?") \(a.settings.url), \(a.settings.users) users, \(a.settings.clients) clients, seed \(a.settings.seed)",
            "B: \(b.startedAt ?? "?") \(b.settings.url), \(b.settings.users) users, \(b.settings.clients) clients, seed \(b.settings.seed)",
            "figure".padding(toLength: 24, withPad: " ", startingAt: 0) + "A".leftPadded(12) + "B".leftPadded(12) + "B/A".leftPadded(9),
        ]
        func row(_ name: String, _ x: Double, _ y: Double) {
            lines.append(name.padding(toLength: 24, withPad: " ", startingAt: 0) + f(x).leftPadded(12) + f(y).leftPadded(12)
                + ratio(x, y).leftPadded(9))
        }
        row("requests/s", a.drive.perSecond, b.drive.perSecond)
        row("accepted increments/s", a.drive.acceptedIncrementsPerSecond, b.drive.acceptedIncrementsPerSecond)
        for kind in OperationKind.allCases {
            guard let x = a.drive.kinds[kind.rawValue], let y = b.drive.kinds[kind.rawValue] else { continue }
            row("\(kind.rawValue) requests/s", x.perSecond, y.perSecond)
            row("\(kind.rawValue) p50 ms", x.latencyMs.p50, y.latencyMs.p50)
            row("\(kind.rawValue) p99 ms", x.latencyMs.p99, y.latencyMs.p99)
        }
        row("errors", Double(a.drive.errors.values.reduce(0, +)), Double(b.drive.errors.values.reduce(0, +)))
        lines.append("check".padding(toLength: 24, withPad: " ", startingAt: 0) + (a.passed ? "passed" : "FAILED").leftPadded(12)
            + (b.passed ? "passed" : "FAILED").leftPadded(12))
        return lines.joined(separator: "\n")
    }

    package static func load(_ path: String) throws -> LoadResult {
        try JSONDecoder().decode(LoadResult.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
