import Foundation
@testable import PantryHTTP
import Testing

@Suite struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func fiveFailuresAreFreeThenTheWaitDoubles() {
        var throttle = LoginThrottle()
        for i in 0..<5 {
            #expect(throttle.retryAfter("anna", now: start.addingTimeInterval(Double(i))) == nil)
            throttle.recordFailure("anna", now: start.addingTimeInterval(Double(i)))
        }
        let fifth = start.addingTimeInterval(4)
        #expect(throttle.retryAfter("anna", now: fifth) == 1)
        #expect(throttle.retryAfter("anna", now: fifth.addingTimeInterval(1)) == nil)
        throttle.recordFailure("anna", now: fifth.addingTimeInterval(1))
        #expect(throttle.retryAfter("anna", now: fifth.addingTimeInterval(1)) == 2)
        throttle.recordFailure("anna", now: fifth.addingTimeInterval(3))
        #expect(throttle.retryAfter("anna", now: fifth.addingTimeInterval(3)) == 4)
    }

    @Test func theWaitIsCapped() {
        var throttle = LoginThrottle()
        var now = start
        for _ in 0..<30 {
            throttle.recordFailure("anna", now: now)
            now.addTimeInterval(1)
        }
        let wait = throttle.retryAfter("anna", now: now.addingTimeInterval(-1))
        #expect(wait == throttle.maxDelay)
    }

    @Test func failuresOutsideTheWindowAreForgotten() {
        var throttle = LoginThrottle()
        for i in 0..<6 { throttle.recordFailure("anna", now: start.addingTimeInterval(Double(i))) }
        #expect(throttle.retryAfter("anna", now: start.addingTimeInterval(6)) != nil)
        #expect(throttle.retryAfter("anna", now: start.addingTimeInterval(15 * 60 + 6)) == nil)
    }

    @Test func accountsAreThrottledSeparatelyRegardlessOfCase() {
        var throttle = LoginThrottle()
        for _ in 0..<6 { throttle.recordFailure("Anna", now: start) }
        #expect(throttle.retryAfter("anna", now: start) != nil)
        #expect(throttle.retryAfter("bert", now: start) == nil)
    }

    @Test func aSuccessClearsTheRecord() {
        var throttle = LoginThrottle()
        for _ in 0..<6 { throttle.recordFailure("anna", now: start) }
        throttle.recordSuccess("ANNA")
        #expect(throttle.retryAfter("anna", now: start) == nil)
    }

    @Test func manyMadeUpUsernamesStayBounded() {
        var throttle = LoginThrottle()
        throttle.maxAccounts = 100
        for i in 0..<1000 { throttle.recordFailure("user\(i)", now: start.addingTimeInterval(Double(i) / 1000)) }
        for _ in 0..<6 { throttle.recordFailure("anna", now: start.addingTimeInterval(2)) }
        #expect(throttle.retryAfter("anna", now: start.addingTimeInterval(2)) != nil)
    }

    @Test func attemptsStillBeingCheckedCountAsFailuresSoABurstGetsNoMoreGuesses() {
        var throttle = LoginThrottle()
        let admitted = (0..<20).filter { _ in throttle.admit("anna", now: start) == nil }
        #expect(admitted.count == throttle.freeFailures, "twenty at once: only the free ones are checked")
        throttle.recordSuccess("anna")
        #expect(throttle.admit("anna", now: start) == nil, "a success clears the attempts it was counted with")
    }
}
