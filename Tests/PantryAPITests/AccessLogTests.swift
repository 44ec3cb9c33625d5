import Testing
@testable import PantryHTTP

struct AccessLogTests {
    @Test func durationsAreMillisecondsToTheMicrosecond() {
        #expect(AccessLog.milliseconds(0) == "0.000")
        #expect(AccessLog.milliseconds(999) == "0.000")
        #expect(AccessLog.milliseconds(7_000) == "0.007")
        #expect(AccessLog.milliseconds(1_234_567) == "1.234")
        #expect(AccessLog.milliseconds(12_050_000) == "12.050")
        #expect(AccessLog.milliseconds(3_600_000_000_000) == "3600000.000")
    }
}
