import Foundation
import Histogram
import PantryLoad
import Testing

@Suite struct ResultTests {
    func stats() -> RunStats {
        var a = RunStats(), b = RunStats()
        for ms in 1...100 { a.record(.increment, microseconds: UInt64(ms) * 1000, atSecond: 0) }
        for ms in 1...10 { b.record(.top10, microseconds: UInt64(ms) * 100, atSecond: 2) }
        b.record(.increment, microseconds: 500, atSecond: 1)
        b.error("HTTP 503 core_unavailable")
        b.retries = 1
        b.lag(12)
        a.lag(-3)
        a.merge(b)
        return a
    }

    func result(_ stats: RunStats, check: LedgerCheck? = nil) -> LoadResult {
        let settings = LoadResult.Settings(url: "http://127.0.0.1:8080", users: 3, clients: 2, durationSeconds: 10, requests: nil,
                                           rate: nil, mix: WorkloadMix(), seed: 5, runPrefix: "ltabc")
        var ledger = PointsLedger(users: 1)
        ledger.earn(user: 0)
        return LoadResult(
            settings: settings, machine: .init(cores: 2, memoryGiB: 24, os: "Linux"),
            registration: .init(users: 3, seconds: 1, usersPerSecond: 3, retries: 0), seconds: 10, stats: stats,
            lag: .init(readReplies: .init(stats.readLag), ready: .init(stats.readLag), lastAccepted: 101, catchUpMilliseconds: 2.5),
            check: check ?? ledger.check(against: [1], usernames: ["ann"]))
    }

    @Test func clientStatsMerge() {
        let merged = stats()
        #expect(merged.completed == [.increment: 101, .top10: 10])
        #expect(merged.latency[.increment]?.totalCount == 101)
        #expect(merged.errors == ["HTTP 503 core_unavailable": 1])
        #expect(merged.retries == 1)
        #expect(merged.perSecond == [100, 1, 10])
        #expect(merged.readLag.totalCount == 2 && merged.readLag.max == 12)
    }

    @Test func theJSONHasThroughputPercentilesErrorsLagAndTheCheck() throws {
        let document = try JSONSerialization.jsonObject(with: result(stats()).json) as! [String: Any]
        #expect(document["passed"] as? Bool == true)
        let drive = document["drive"] as! [String: Any]
        #expect(drive["requests"] as? Int == 111)
        #expect(drive["acceptedIncrementsPerSecond"] as? Double == 10.1)
        let increment = (drive["kinds"] as! [String: Any])["increment"] as! [String: Any]
        let latency = increment["latencyMs"] as! [String: Any]
        #expect(abs((latency["p99"] as! Double) - 99) < 0.1)
        #expect(latency["p50"] != nil && latency["p90"] != nil && latency["p999"] != nil && latency["max"] != nil)
        #expect((drive["errors"] as! [String: Int]) == ["HTTP 503 core_unavailable": 1])
        #expect((document["settings"] as! [String: Any])["seed"] as? Int == 5)
        #expect((document["check"] as! [String: Any])["expectedTotal"] as? Int == 1)
        #expect((document["lag"] as! [String: Any])["lastAccepted"] as? Int == 101)
    }

    @Test func aDoubledPointOrAnUnknownOutcomeFailsTheRun() {
        var doubled = stats()
        doubled.doubled = 1
        #expect(!result(doubled).passed)
        var unknown = stats()
        unknown.indefinite = 1
        #expect(!result(unknown).passed)
        let summary = result(unknown).summary
        #expect(summary.contains("check         FAILED"))
        #expect(summary.contains("outcomes unknown 1"))
    }

    @Test func theSummaryHasALinePerKind() {
        let summary = result(stats()).summary
        #expect(summary.contains("  increment         101"))
        #expect(summary.contains("  top10              10"))
        #expect(summary.contains("errors        HTTP 503 core_unavailable: 1"))
        #expect(summary.contains("check         PASSED"))
    }

    @Test func progressLine() {
        #expect(ProgressLine.render(label: "users", done: 4200, total: 10_000, perSecond: 1234.4)
            == "users [############..................]  42% 4200/10000  1234/s")
        #expect(ProgressLine.render(label: "drive", done: 7, total: 5, perSecond: 0, unit: "s")
            == "drive [##############################] 100% 7/5 s  0/s")
    }
}
