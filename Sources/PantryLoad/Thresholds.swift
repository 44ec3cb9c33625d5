/// `--fail-on "p99<10ms,errors=0,rps>=1000"`: what a run must meet, checked after it. Latency
/// terms hold for every kind of request (the worst kind decides); `errors` counts unexpected
/// answers and transport failures; `rps` is answered requests per second of the drive.
package struct Thresholds: Sendable, Equatable {
    package enum Metric: String, Sendable, CaseIterable { case p50, p90, p99, p999, max, errors, rps }
    package enum Comparison: String, Sendable { case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "=" }

    package struct Term: Sendable, Equatable, CustomStringConvertible {
        package var metric: Metric
        package var comparison: Comparison
        /// Milliseconds for latencies.
        package var value: Double
        package var description: String {
            "\(metric.rawValue)\(comparison.rawValue)\(value.formatted())\(metric.isLatency ? "ms" : "")"
        }
    }

    package struct Verdict: Codable, Sendable, Equatable {
        package var term: String
        package var measured: Double
        package var met: Bool
    }

    package var terms: [Term]

    package struct ParseError: Error, CustomStringConvertible {
        package var description: String
    }

    package init(parsing text: String) throws(ParseError) {
        var terms: [Term] = []
        for raw in text.split(separator: ",") {
            let term = raw.trimmingCharacters(in: .whitespaces)
            guard let metric = Metric.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count })
                .first(where: { term.hasPrefix($0.rawValue) }) else {
                throw ParseError(description: "'\(term)': start with one of \(Metric.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var rest = term.dropFirst(metric.rawValue.count)
            guard let comparison = [Comparison.lessOrEqual, .greaterOrEqual, .less, .greater, .equal]
                .first(where: { rest.hasPrefix($0.rawValue) }) else {
                throw ParseError(description: "'\(term)': a comparison (<, <=, >, >=, =) must follow \(metric.rawValue)")
            }
            rest = rest.dropFirst(comparison.rawValue.count)
            var scale = 1.0
            if metric.isLatency {
                if rest.hasSuffix("ms") { rest = rest.dropLast(2) } else if rest.hasSuffix("s") { rest = rest.dropLast(); scale = 1000 }
            }
            guard let value = Double(rest), value.isFinite, value >= 0 else {
                throw ParseError(description: "'\(term)': '\(rest)' is not a number\(metric.isLatency ? " of ms or s" : "")")
            }
            terms.append(Term(metric: metric, comparison: comparison, value: value * scale))
        }
        guard !terms.isEmpty else { throw ParseError(description: "no thresholds given") }
        self.terms = terms
    }

    package func verdicts(for result: LoadResult) -> [Verdict] {
        terms.map { term in
            let measured = Self.measure(term.metric, in: result)
            return Verdict(term: term.description, measured: measured, met: term.comparison.holds(measured, term.value))
        }
    }

    static func measure(_ metric: Metric, in result: LoadResult) -> Double {
        let kinds = result.drive.kinds.values.map(\.latencyMs)
        switch metric {
        case .p50: return kinds.map(\.p50).max() ?? 0
        case .p90: return kinds.map(\.p90).max() ?? 0
        case .p99: return kinds.map(\.p99).max() ?? 0
        case .p999: return kinds.map(\.p999).max() ?? 0
        case .max: return kinds.map(\.max).max() ?? 0
        case .errors: return Double(result.drive.errors.values.reduce(0, +) + result.drive.indefinite)
        case .rps: return result.drive.perSecond
        }
    }
}

extension Thresholds.Metric {
    var isLatency: Bool { ![.errors, .rps].contains(self) }
}

extension Thresholds.Comparison {
    func holds(_ measured: Double, _ limit: Double) -> Bool {
        switch self {
        case .less: measured < limit
        case .lessOrEqual: measured <= limit
        case .greater: measured > limit
        case .greaterOrEqual: measured >= limit
        case .equal: measured == limit
        }
    }
}
