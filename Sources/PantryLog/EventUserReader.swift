/// An event's position, schema version and user (the log's `user_id` column: the user whose
/// command appended it), without its payload.
package struct EventUser: Sendable, Equatable {
    package var position: Int64
    package var schemaVersion: Int
    package var userId: String

    package init(position: Int64, schemaVersion: Int, userId: String) {
        self.position = position; self.schemaVersion = schemaVersion; self.userId = userId
    }
}

/// A log that reads events' users from its columns alone: a rebuild that needs nothing else of an
/// event type (the leaderboard's points) neither copies nor decodes their payloads. The log service's
/// remote reader is not one: a rebuild through it reads whole events.
package protocol EventUserReader: EventLogReader {
    /// The events of `type` with a position in `position + 1 ... last`, oldest first, as `EventUser`s.
    func readUsers(after position: Int64, through last: Int64, type: String) throws -> [EventUser]
}
