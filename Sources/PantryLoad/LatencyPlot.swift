import Foundation
import Histogram

/// The run as an SVG a person can read: latency by percentile for each kind of request (the
/// percentile axis stretched towards the tail, as HdrHistogram's plots are), then answered
/// requests per second and their p50 and p99 latency over time below it.
package enum LatencyPlot {
    static let width = 960.0
    static let colours: [OperationKind: String] = [
        .increment: "#1f77b4", .repeat: "#9467bd", .cook: "#ff7f0e", .top10: "#2ca02c", .myRank: "#d62728",
    ]

    package static func svg(latency: [OperationKind: Histogram<UInt64>], perSecond: [Int], overTime: [LoadResult.SecondLatency],
                           title: String, subtitle: String) -> String {
        var svg = Canvas(width: width, height: 1020)
        svg.text(title, x: 20, y: 30, size: 18, weight: "bold")
        svg.text(subtitle, x: 20, y: 52, size: 12, colour: "#555")
        percentileChart(&svg, latency, frame: Frame(x: 80, y: 80, width: width - 280, height: 400))
        throughputChart(&svg, perSecond, frame: Frame(x: 80, y: 560, width: width - 280, height: 170))
        latencyOverTimeChart(&svg, overTime, seconds: perSecond.count, frame: Frame(x: 80, y: 800, width: width - 280, height: 170))
        return svg.finish()
    }

    /// Each second's p50 and p99 (all kinds): where the latency broke, and when.
    private static func latencyOverTimeChart(_ svg: inout Canvas, _ series: [LoadResult.SecondLatency], seconds: Int, frame: Frame) {
        let shown = series.filter { $0.second < max(seconds - 1, 1) }   // the last second is cut short
        let span = Double(max(seconds - 1, 1))
        let top = niceCeiling(shown.map(\.p99Ms).max() ?? 1)
        svg.axes(frame, xLabel: "second of the run", yLabel: "latency (ms)")
        let step = niceCeiling(span / 10)
        for s in stride(from: 0.0, through: span, by: step) {
            svg.xTick(frame.x + frame.width * s / span, frame: frame, label: String(Int(s)))
        }
        svg.yTicks(frame: frame, top: top, unit: "")
        for (name, colour, value) in [("p99", "#d62728", \LoadResult.SecondLatency.p99Ms), ("p50", "#1f77b4", \LoadResult.SecondLatency.p50Ms)] {
            svg.polyline(shown.map { (frame.x + frame.width * (Double($0.second) + 0.5) / span, frame.y + frame.height * (1 - $0[keyPath: value] / top)) },
                         colour: colour)
            let y = frame.y + (name == "p99" ? 14 : 50)
            svg.line(frame.x + frame.width + 20, y, frame.x + frame.width + 44, y, colour: colour, width: 3)
            svg.text("\(name) per second", x: frame.x + frame.width + 50, y: y + 4, size: 13, weight: "bold")
        }
    }

    /// Where a percentile lands on a log axis of "one in N": 90% is 1, 99% is 2, 99.9% is 3.
    static func tailPosition(_ percentile: Double) -> Double {
        log10(1 / max(1 - percentile / 100, 1e-9))
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value * 0.999_999 } ?? 10 * power
    }

    private static func percentileChart(_ svg: inout Canvas, _ latency: [OperationKind: Histogram<UInt64>], frame: Frame) {
        let kinds = OperationKind.allCases.filter { (latency[$0]?.totalCount ?? 0) > 0 }
        let largest = kinds.map { latency[$0]!.totalCount }.max() ?? 1
        // As far into the tail as the samples reach: 99.99% needs at least 10,000 of them.
        let tail = min(max(floor(log10(Double(largest))), 2), 5)
        var curves: [(OperationKind, [(Double, Double)])] = []
        for kind in kinds {
            var points: [(Double, Double)] = []
            for step in latency[kind]!.percentiles(ticksPerHalfDistance: 5) {
                points.append((min(tailPosition(step.percentileLevelIteratedTo), tail), Double(step.value) / 1000))
                if step.percentileLevelIteratedTo >= 100 { break }
            }
            curves.append((kind, points))
        }
        let top = niceCeiling(curves.flatMap { $0.1.map(\.1) }.max() ?? 1)
        svg.axes(frame, xLabel: "percentile", yLabel: "latency (ms)")
        for k in 0...Int(tail) {
            let label = k == 0 ? "0%" : String(format: "%.\(max(k - 2, 0))f%%", 100 - 100 / pow(10, Double(k)))
            svg.xTick(frame.x + frame.width * Double(k) / tail, frame: frame, label: label)
        }
        svg.yTicks(frame: frame, top: top, unit: "")
        for (kind, points) in curves {
            svg.polyline(points.map { (frame.x + frame.width * $0.0 / tail, frame.y + frame.height * (1 - $0.1 / top)) },
                         colour: colours[kind]!)
        }
        for (index, kind) in kinds.enumerated() {
            let h = latency[kind]!
            let y = frame.y + 14 + Double(index) * 36
            svg.line(frame.x + frame.width + 20, y, frame.x + frame.width + 44, y, colour: colours[kind]!, width: 3)
            svg.text(kind.rawValue, x: frame.x + frame.width + 50, y: y + 4, size: 13, weight: "bold")
            let figures = String(format: "p50 %.2f  p99 %.2f ms", Double(h.valueAtPercentile(50)) / 1000, Double(h.valueAtPercentile(99)) / 1000)
            svg.text(figures, x: frame.x + frame.width + 50, y: y + 20, size: 11, colour: "#555")
        }
    }

    private static func throughputChart(_ svg: inout Canvas, _ series: [Int], frame: Frame) {
        // The last second is cut short by the end of the run: it would look like a collapse.
        let perSecond = series.count > 1 ? Array(series.dropLast()) : series
        let seconds = max(perSecond.count, 1)
        let top = niceCeiling(Double(perSecond.max() ?? 1))
        svg.axes(frame, xLabel: "second of the run", yLabel: "requests/s")
        let step = niceCeiling(Double(seconds) / 10)
        for s in stride(from: 0.0, through: Double(seconds), by: step) {
            svg.xTick(frame.x + frame.width * s / Double(seconds), frame: frame, label: String(Int(s)))
        }
        svg.yTicks(frame: frame, top: top, unit: "")
        let points = perSecond.enumerated().map { second, count in
            (frame.x + frame.width * (Double(second) + 0.5) / Double(seconds), frame.y + frame.height * (1 - Double(count) / top))
        }
        svg.polyline(points, colour: "#444")
    }
}

struct Frame {
    var x, y, width, height: Double
}

/// Just enough SVG: text, lines and axes.
struct Canvas {
    private var body: [String] = []
    let width, height: Double

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
        body.append(#"<rect width="100%" height="100%" fill="white"/>"#)
    }

    mutating func text(_ text: String, x: Double, y: Double, size: Double, weight: String = "normal",
                       colour: String = "#000", anchor: String = "start", rotate: Bool = false) {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let transform = rotate ? #" transform="rotate(-90 \#(n(x)) \#(n(y)))""# : ""
        body.append(#"<text x="\#(n(x))" y="\#(n(y))" font-size="\#(n(size))" font-weight="\#(weight)" fill="\#(colour)" text-anchor="\#(anchor)"\#(transform)>\#(escaped)</text>"#)
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: String, width: Double = 1) {
        body.append(#"<line x1="\#(n(x1))" y1="\#(n(y1))" x2="\#(n(x2))" y2="\#(n(y2))" stroke="\#(colour)" stroke-width="\#(n(width))"/>"#)
    }

    mutating func polyline(_ points: [(Double, Double)], colour: String) {
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        body.append(#"<polyline points="\#(list)" fill="none" stroke="\#(colour)" stroke-width="2"/>"#)
    }

    mutating func axes(_ frame: Frame, xLabel: String, yLabel: String) {
        body.append(#"<rect x="\#(n(frame.x))" y="\#(n(frame.y))" width="\#(n(frame.width))" height="\#(n(frame.height))" fill="none" stroke="gray"/>"#)
        text(xLabel, x: frame.x + frame.width / 2, y: frame.y + frame.height + 38, size: 12, anchor: "middle")
        text(yLabel, x: frame.x - 55, y: frame.y + frame.height / 2, size: 12, anchor: "middle", rotate: true)
    }

    mutating func xTick(_ x: Double, frame: Frame, label: String) {
        line(x, frame.y, x, frame.y + frame.height, colour: "#eee")
        text(label, x: x, y: frame.y + frame.height + 18, size: 11, anchor: "middle")
    }

    mutating func yTicks(frame: Frame, top: Double, unit: String) {
        for k in 0...5 {
            let value = top * Double(k) / 5
            let y = frame.y + frame.height * (1 - Double(k) / 5)
            line(frame.x, y, frame.x + frame.width, y, colour: "#eee")
            let label = value >= 100 || value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.2g", value)
            text(label + unit, x: frame.x - 6, y: y + 4, size: 11, anchor: "end")
        }
    }

    func finish() -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="sans-serif">
        \(body.joined(separator: "\n"))
        </svg>

        """
    }

    private func n(_ value: Double) -> String { String(format: "%.1f", value) }
}
