import NIOConcurrencyHelpers
import PantryFiles
import Testing

@Suite struct BackgroundWriterTests {
    @Test("A write asked for while one is under way is skipped, and a stop waits for the one under way")
    func oneWriteAtATime() {
        let writer = BackgroundWriter()
        let release = ConditionLock(value: 0)
        let done = NIOLockedValueBox<[String]>([])
        #expect(writer.submit {
            release.lock(whenValue: 1)
            release.unlock()
            done.withLockedValue { $0.append("first") }
        })
        #expect(!writer.submit { done.withLockedValue { $0.append("second") } }, "skipped: the first is under way")
        release.lock()
        release.unlock(withValue: 1)
        writer.waitForWrites()
        #expect(done.withLockedValue { $0 } == ["first"], "the stop waited for the first; the second never ran")
        #expect(writer.submit { done.withLockedValue { $0.append("third") } }, "free again once the first is done")
        writer.waitForWrites()
        #expect(done.withLockedValue { $0 } == ["first", "third"])
    }
}
