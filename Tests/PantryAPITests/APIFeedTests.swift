import Logging
import Testing
import ZeroMQ
@testable import PantryAPI
@testable import PantryHTTP

struct APIFeedTests {
    @Test func aWaitForAPositionNotAppliedEndsAtItsTimeoutAndOneAlreadyAppliedDoesNotWait() async throws {
        let feed = try APIFeed(models: [], keys: nil, context: ZMQContext(), feed: "inproc://none", openLog: { nil },
                               logger: Logger(label: "test"))
        #expect(await feed.waitUntilApplied(0, timeout: .seconds(30)))
        let clock = ContinuousClock()
        let asked = clock.now
        #expect(await feed.waitUntilApplied(5, timeout: .milliseconds(50)) == false)
        #expect(clock.now - asked >= .milliseconds(50))
    }
}
