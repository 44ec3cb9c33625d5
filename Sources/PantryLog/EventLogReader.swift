import Foundation

/// What a process that follows the log needs of it: ranges of events and the head. The SQLite
/// file, the PostgreSQL log and the core's log service (`RemoteEventStore`) all answer it, and the
/// executable chooses which one a process reads.
package protocol EventLogReader: AnyObject, Sendable {
    /// Events with a position greater than `position`, oldest first, at most `limit`.
    func read(after position: Int64, limit: Int) throws -> [RecordedEvent]

    /// The events of `types` with a position in `position + 1 ... last`, oldest first. The log is
    /// dense, so every other position in that range holds an event of another type: a reader that
    /// ignores those types may count itself at `last` afterwards without having seen them.
    func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent]

    /// The events at `positions` that exist, oldest first.
    func read(positions: [Int64]) throws -> [RecordedEvent]

    /// The position of the newest event, 0 for an empty log.
    func headPosition() throws -> Int64

    /// The ingredients `userId` earned a point for in `recipeId`, by the log's point index: the
    /// head is read first, so every point up to it is included.
    func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients
}

package enum EventStoreError: Error, Equatable, CustomStringConvertible {
    case wrongExpectedVersion(streamId: String, expected: Int64, actual: Int64)
    case emptyAppend(streamId: String)
    case corrupt(String)
    /// The log's server cannot be reached now (a lost connection, a server restarting, the
    /// process stopping): nothing was written, and the same call may succeed later.
    case unavailable(String)

    package var description: String {
        switch self {
        case .wrongExpectedVersion(let stream, let expected, let actual):
            "stream \(stream) is at version \(actual), not the expected \(expected)"
        case .emptyAppend(let stream): "an append to \(stream) holds no events"
        case .corrupt(let reason): "the event log is corrupt: \(reason)"
        case .unavailable(let reason): "the event log's storage is unavailable: \(reason)"
        }
    }
}
