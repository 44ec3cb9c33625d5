import Foundation
@testable import PantryEventStore
import Testing

/// When the checkpointer's next turn comes: as late as a second while the WAL fills slowly, and
/// before a WAL filling fast can pass its limit by much.
@Suite struct CheckpointPacingTests {
    let limit: Int64 = 64 << 20
    let intervals: ClosedRange<TimeInterval> = 0.05...1
    let start = ContinuousClock.now

    func pause(from before: Int64, to now: Int64, after seconds: Double) -> TimeInterval {
        BackgroundCheckpointer.pause(walBytes: now, limit: limit, since: (start, before),
                                     now: start + .milliseconds(Int(seconds * 1000)), intervals: intervals)
    }

    @Test func aWALThatFillsSlowlyIsCheckpointedOnceASecond() {
        #expect(pause(from: 0, to: 1 << 20, after: 1) == 1)
        #expect(pause(from: 1 << 20, to: 1 << 20, after: 1) == 1, "nothing written")
    }

    /// 16 MiB left at 40 MiB/s: the limit is 0.4 s away.
    @Test func aWALThatFillsFastIsVisitedWhenItShouldReachTheLimit() {
        let seconds = pause(from: 8 << 20, to: 48 << 20, after: 1)
        #expect(abs(seconds - 0.4) < 0.001, "\(seconds)")
    }

    @Test func nearOrPastTheLimitTheNextTurnComesAtTheShortestInterval() {
        #expect(pause(from: 0, to: limit - 1, after: 0.2) == 0.05)
        #expect(pause(from: limit, to: limit + (1 << 20), after: 0.2) == 0.05)
        #expect(pause(from: limit, to: limit, after: 0.2) == 0.05, "over the limit, written or not")
    }

    /// After a RESTART the WAL holds less than at the last turn: it grew at least what it holds.
    @Test func aWALThatStartedOverGrewWhatItHolds() {
        let seconds = pause(from: limit, to: 32 << 20, after: 1)
        #expect(abs(seconds - 1) < 0.001, "32 MiB in a second leaves a second to the limit: \(seconds)")
        #expect(pause(from: limit, to: 60 << 20, after: 0.5) < 0.05 + 1e-9)
    }

    /// A refused RESTART is tried again after the backoff, or sooner if the WAL doubles first: a
    /// reader that a busy machine slowed for a moment let the WAL grow for the whole backoff.
    @Test func aRefusedRestartIsTriedAfterTheBackoffOrOnceTheWALHasDoubled() {
        var schedule = BackgroundCheckpointer.RestartSchedule(backoff: .milliseconds(250), maxBackoff: .seconds(30))
        #expect(schedule.isDue(walBytes: limit + 1, now: start), "nothing refused yet")
        schedule.refused(walBytes: limit, now: start)
        #expect(!schedule.isDue(walBytes: limit + (1 << 20), now: start + .milliseconds(100)))
        #expect(schedule.isDue(walBytes: limit + (1 << 20), now: start + .milliseconds(250)))
        #expect(schedule.isDue(walBytes: 2 * limit, now: start + .milliseconds(10)))

        schedule.refused(walBytes: 2 * limit, now: start)
        #expect(!schedule.isDue(walBytes: 3 * limit, now: start + .milliseconds(499)), "the backoff doubled")
        #expect(schedule.isDue(walBytes: 3 * limit, now: start + .milliseconds(500)))
        #expect(schedule.isDue(walBytes: 4 * limit, now: start), "and so did the size")
        #expect(schedule.refusalsInARow == 2)

        for _ in 0..<20 { schedule.refused(walBytes: limit, now: start) }
        #expect(!schedule.isDue(walBytes: limit, now: start + .seconds(29)), "the backoff stops growing at 30 s")
        #expect(schedule.isDue(walBytes: limit, now: start + .seconds(30)))

        schedule.succeeded()
        #expect(schedule.isDue(walBytes: limit + 1, now: start) && schedule.refusalsInARow == 0)
    }
}
