import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Histogram
import PantryLoad
import Testing

@Suite struct PlotTests {
    @Test func theSVGIsWellFormedWithACurvePerKindAndALegend() throws {
        var stats = RunStats()
        for n in 1...5_000 {
            stats.record(.increment, microseconds: UInt64(n), atSecond: n / 1000)
            if n % 2 == 0 { stats.record(.myRank, microseconds: UInt64(n * 2), atSecond: n / 1000) }
        }
        let overTime = (0..<5).map { LoadResult.SecondLatency(second: $0, p50Ms: Double($0), p99Ms: Double($0) * 2) }
        let svg = LatencyPlot.svg(latency: stats.latency, perSecond: stats.perSecond, overTime: overTime,
                                  title: "a <title> & more", subtitle: "sub")
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        // Two kinds, the throughput line, and p50 and p99 over time.
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 5)
        #expect(svg.contains(">p99 per second</text>"))
        #expect(svg.contains(">increment</text>") && svg.contains(">myRank</text>") && !svg.contains(">top10</text>"))
        #expect(svg.contains("a &lt;title&gt; &amp; more"))
        #expect(svg.contains(">99.9%</text>"))
    }

    @Test func anEmptyRunStillDraws() {
        let svg = LatencyPlot.svg(latency: [:], perSecond: [], overTime: [], title: "t", subtitle: "s")
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }
}
