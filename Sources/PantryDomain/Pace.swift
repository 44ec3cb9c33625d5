/// How fast one person may do something: at most `burst` at once, then one more every `interval`
/// milliseconds (a generic cell rate algorithm). The state is one time per user, `due`: when the
/// ones done so far are paid off. It is folded from the events' own times, never from a clock,
/// so the same log and the same command give the same answer.
package struct Pace: Sendable, Equatable {
    package var burst: Int
    package var interval: Int64

    package init(burst: Int, interval: Int64) {
        precondition(burst >= 1 && interval >= 1)
        self.burst = burst; self.interval = interval
    }

    /// Milliseconds to wait before one more is allowed at `at`; 0 when it is allowed now.
    package func wait(due: Int64?, at: Int64) -> Int64 {
        guard let due else { return 0 }
        return max(0, due - at - Int64(burst - 1) * interval)
    }

    /// `due` after one more at `at`. Applied to every accepted one, allowed or not when it was
    /// logged (an old log has no pace), so a replay builds the same state.
    package func due(after due: Int64?, at: Int64) -> Int64 {
        max(due ?? at, at) + interval
    }
}

/// The paces the core enforces. The defaults are far above what a person does; a farmer gets
/// no further (issue 32: a script earned 2,315 points in 10 s and took rank 1).
package struct Paces: Sendable, Equatable {
    /// Points ("I have this"): a typical recipe has 10-15 ingredients, so 60 at once covers a
    /// whole day's cooking ticked off in one go (four recipes); then one every 6 minutes, 10 an
    /// hour, a new 15-ingredient recipe every 90 minutes all day long. A script gets at most 60
    /// + 240 points on its first day, and 240 a day after that.
    package var points: Pace
    /// Tips: 10 at once (reviewing a few favourites in one sitting), then one every 6 minutes:
    /// at most 20 in any hour, on top of `Decider.maxExperiencesPerRecipe` per recipe.
    package var tips: Pace

    package init(points: Pace, tips: Pace) { self.points = points; self.tips = tips }

    package static let human = Paces(points: Pace(burst: 60, interval: 6 * 60_000),
                                     tips: Pace(burst: 10, interval: 6 * 60_000))
}
