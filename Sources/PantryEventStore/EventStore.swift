import Foundation
import PantryDomain
import PantryLog

/// The log, behind one protocol so that a second backend (PostgreSQL, say) can pass the same tests:
/// the reads every follower makes (`EventLogReader`), the users-only read of a rebuild
/// (`EventUserReader`) and what only the writer and the tools need.
package protocol EventStore: EventUserReader {
    /// Appends all of `appends` in one durable transaction, or nothing. Returns the positions
    /// given to each append's events, in order. Throws `EventStoreError.wrongExpectedVersion`
    /// when a stream moved on.
    func append(_ appends: [StreamAppend]) throws -> [ClosedRange<Int64>]

    /// Every event of one stream, oldest first.
    func readStream(_ streamId: String) throws -> [RecordedEvent]

    /// The idempotency record: for each of `commandIds` that the log holds, where its events are
    /// and what it asked for. Asked of the log, by index, rather than kept in memory: one entry per
    /// command ever accepted grew the core by 100 MB a million commands, and its start with them.
    func acceptedCommands(_ commandIds: [String]) throws -> [String: AcceptedCommand]

    /// The one-point rule's record: which of `points` the log holds a `PointEarned` for. Asked of
    /// the log, by index, like the idempotency record: one entry per point ever earned kept in
    /// memory grew the core by 55 MB in a 10-minute soak (1.8 million points), without bound.
    func earnedPoints(_ points: [PointKey]) throws -> Set<PointKey>

    /// How many events of each type the log holds.
    func countsByType() throws -> [String: Int]

    /// Why an append would fail now, seen without writing and without a server's answer (the
    /// file's disk has no room left), or nil. The core asks every second, so that `/ready` says
    /// so before, and while, commands fail.
    func writeObstacle() -> String?
}

extension EventStore {
    /// A server's state is learnt by its calls: nothing is seen without one.
    package func writeObstacle() -> String? { nil }
}

/// A point as `PointEarned` names it: a user, a recipe, and the ingredient's key in that recipe.
package struct PointKey: Hashable, Sendable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var ingredient: String

    package init(userId: UserID, recipeId: RecipeID, ingredient: String) {
        self.userId = userId; self.recipeId = recipeId; self.ingredient = ingredient
    }
}

