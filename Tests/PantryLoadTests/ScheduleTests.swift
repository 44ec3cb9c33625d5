import PantryLoad
import Testing

@Suite struct ScheduleTests {
    @Test func theClientsTogetherSendEvenlyAtTheRate() {
        let schedule = Schedule(rate: 1_000, clients: 4)
        let due = (0..<4).flatMap { client in (0..<25).map { schedule.due(client: client, index: $0) } }.sorted()
        #expect(due.count == 100)
        #expect(due.first == 0)
        #expect(zip(due, due.dropFirst()).allSatisfy { $1 - $0 == 1_000_000 })
    }

    @Test func eachClientSendsAtItsShareOfTheRate() {
        let schedule = Schedule(rate: 500, clients: 10)
        #expect(schedule.due(client: 3, index: 1) - schedule.due(client: 3, index: 0) == 20_000_000)
    }

    /// 100/s for 2 s, then 400/s for 1 s, over 4 clients: 200 requests then 400, evenly spaced
    /// within each step, and nothing due before its step starts.
    @Test func aRampSendsEachStepAtItsRate() {
        let schedule = Schedule(steps: [.init(rate: 100, seconds: 2), .init(rate: 400, seconds: 1)], clients: 4)
        let due = (0..<4).flatMap { client in (0..<150).map { schedule.due(client: client, index: $0) } }.sorted()
        let first = due.filter { $0 < 2_000_000_000 }, second = due.filter { $0 >= 2_000_000_000 && $0 < 3_000_000_000 }
        #expect(first.count == 200 && second.count == 400)
        #expect(zip(first, first.dropFirst()).allSatisfy { $1 - $0 == 10_000_000 })
        #expect(zip(second, second.dropFirst()).allSatisfy { $1 - $0 == 2_500_000 })
        #expect(due.filter { $0 >= 3_000_000_000 }.allSatisfy { $0 == 3_000_000_000 }, "past the ramp: its end")
    }

    @Test func aSecondsLatencyIsReadFromItsBuckets() {
        var overTime = LatencyOverTime()
        for micros in [100, 200, 300, 400, 500, 600, 700, 800, 900, 50_000] as [UInt64] { overTime.record(microseconds: micros, atSecond: 1) }
        let p50 = overTime.percentile(50, seconds: 1..<2)!, p99 = overTime.percentile(99, seconds: 1..<2)!
        #expect(p50 >= 0.5 && p50 <= 0.5 * 1.26, "\(p50)")
        #expect(p99 >= 50 && p99 <= 50 * 1.26, "\(p99)")
        #expect(overTime.percentile(50, seconds: 0..<1) == nil && overTime.answers(seconds: 0..<5) == 10)
    }

    @Test func requestsAreSharedOutExactly() {
        let configuration = LoadConfiguration(url: "http://x", users: 10, clients: 7, duration: nil, requests: 100, rate: nil,
                                              mix: WorkloadMix(), seed: 1, runPrefix: "p", password: "password", timeout: 1)
        let quotas = (0..<7).map { configuration.quota(client: $0)! }
        #expect(quotas.reduce(0, +) == 100)
        #expect(quotas.max()! - quotas.min()! <= 1)
    }

    @Test func runPrefixesAreValidUsernamesAndDifferByTime() {
        let a = LoadConfiguration.runPrefix(seed: 9, time: 1_000)
        #expect(a == LoadConfiguration.runPrefix(seed: 9, time: 1_000))
        #expect(a != LoadConfiguration.runPrefix(seed: 9, time: 1_001))
        let username = "\(a)u9999999"
        #expect((3...32).contains(username.count))
        #expect(username.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }
}
