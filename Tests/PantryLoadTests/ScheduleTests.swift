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
