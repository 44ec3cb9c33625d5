/// The log, behind one protocol so that a second backend (PostgreSQL, say) can pass the same tests.
public protocol EventStore: AnyObject, Sendable {
    /// Appends all of `appends` in one durable transaction, or nothing. Returns the positions
    /// given to each append's events, in order. Throws `EventStoreError.wrongExpectedVersion`
    /// when a stream moved on.
    func append(_ appends: [StreamAppend]) throws -> [ClosedRange<Int64>]

    /// Events with a position greater than `position`, oldest first, at most `limit`.
    func read(after position: Int64, limit: Int) throws -> [RecordedEvent]

    /// The events of `types` with a position in `position + 1 ... last`, oldest first. The log is
    /// dense, so every other position in that range holds an event of another type: a reader that
    /// ignores those types may count itself at `last` afterwards without having seen them.
    func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent]

    /// The events at `positions` that exist, oldest first.
    func read(positions: [Int64]) throws -> [RecordedEvent]

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

    /// The position of the newest event, 0 for an empty log.
    func headPosition() throws -> Int64

    /// How many events of each type the log holds.
    func countsByType() throws -> [String: Int]
}

/// A point as `PointEarned` names it: a user, a recipe, and the ingredient's key in that recipe.
public struct PointKey: Hashable, Sendable {
    public var userId: String
    public var recipeId: String
    public var ingredient: String

    public init(userId: String, recipeId: String, ingredient: String) {
        self.userId = userId; self.recipeId = recipeId; self.ingredient = ingredient
    }
}

public enum EventStoreError: Error, Equatable, CustomStringConvertible {
    case wrongExpectedVersion(streamId: String, expected: Int64, actual: Int64)
    case emptyAppend(streamId: String)
    case corrupt(String)

    public var description: String {
        switch self {
        case .wrongExpectedVersion(let stream, let expected, let actual):
            "stream \(stream) is at version \(actual), not the expected \(expected)"
        case .emptyAppend(let stream): "an append to \(stream) holds no events"
        case .corrupt(let reason): "the event log is corrupt: \(reason)"
        }
    }
}
