import Foundation
import GRDB
import PantryDomain
import PantryLog

/// A read model built from the event log. A projection is stateless code over its own SQLite file:
/// everything it knows lives in the tables it creates in `migrate`, so the same type serves the live
/// worker, the replayer and the readers.
///
/// `apply` is called inside the transaction that also advances the checkpoint, in log order, exactly
/// once per position (the `ProjectionStore` guarantees that), so an implementation only has to fold
/// one event into its tables.
package protocol Projection: Sendable {
    /// The projection's name, also its file name (`<name>.sqlite`).
    var name: String { get }
    /// The event types this projection reads. Events of any other type (including types added after
    /// this code was written) are not decoded; they only advance the checkpoint.
    var eventTypes: Set<EventType> { get }
    /// The version of the tables `migrate` creates. A file of another version is rebuilt from
    /// the log rather than upgraded in place: the log is the truth, and a rebuild is always right.
    var layoutVersion: Int { get }
    /// Creates the projection's tables and indexes. Runs once, on an empty file.
    func migrate(_ db: Database) throws
    /// Folds one event into the tables. `recorded` gives the log position and `metadata.recordedAt`.
    func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws
    /// Folds a batch of events (of this projection's types, in log order) into the tables. The
    /// default applies them one by one; a projection may fold a batch more cheaply as long as the
    /// tables end exactly as one-by-one would leave them.
    func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws
    /// For a rebuild from position 0 (`Replayer`): a fold that may keep what it folds in memory
    /// across batches and write it when the rebuild ends. Nil (the default): batch by batch.
    func rebuildFold() -> (any ProjectionFold)?
    /// Indexes a rebuild keeps while it folds, because the fold itself looks rows up by them;
    /// every other secondary index is dropped and made again at the end. None by default.
    var indexesTheFoldReads: Set<String> { get }
    /// A SHA-256 (hex) over the projection's whole state in a canonical order, not including the
    /// checkpoint: a replayed copy and a live copy at the same position have the same checksum.
    func checksum(_ db: Database) throws -> String
}

extension Projection {
    package var layoutVersion: Int { 1 }

    package func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws {
        for (event, recorded) in batch { try apply(event, recorded: recorded, db: db) }
    }

    package func rebuildFold() -> (any ProjectionFold)? { nil }

    package var indexesTheFoldReads: Set<String> { [] }
}

/// Batches folded into memory across transactions and written by `finish`, for a rebuild: its file
/// is thrown away unless the whole rebuild succeeds, so its tables may lag its checkpoint until
/// `finish`. The tables must end exactly as batch-by-batch `apply` would leave them.
package protocol ProjectionFold: AnyObject {
    func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws
    func finish(_ db: Database) throws
}

/// A rebuild's fold that needs only the position and user of one of its types' events (the
/// leaderboard's points): from a log that reads those alone (`EventUserReader`) it gets them as
/// `EventUser`s, their payloads neither copied nor decoded. From any other log it folds whole
/// events (`apply(batch:db:)`); both must leave the same tables.
package protocol UserOnlyFold: ProjectionFold {
    var userOnlyType: EventType { get }
    /// `batch`: the events of the projection's other types; `users`: those of `userOnlyType`;
    /// each in log order, to be folded as if merged by position.
    func apply(batch: [(event: Event, recorded: RecordedEvent)], users: [EventUser], db: Database) throws
}

package enum ProjectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first event after the checkpoint is missing: read `expected...` from the log and apply it.
    case gap(expected: Int64, got: Int64)
    /// An event of a type this projection reads could not be decoded. Nothing of its batch was applied.
    case undecodable(position: Int64, reason: String)
    /// `ProjectionCatalog.named` was given a name it does not know.
    case unknownProjection(String)

    package var description: String {
        switch self {
        case .gap(let expected, let got): "gap in the event stream: expected position \(expected), got \(got)"
        case .undecodable(let position, let reason): "the event at position \(position) cannot be decoded: \(reason)"
        case .unknownProjection(let name): "there is no projection named '\(name)'"
        }
    }
}

/// Every projection a worker can run.
package enum ProjectionCatalog {
    package static let all: [any Projection] = [
        LeaderboardProjection(), CartsProjection(), FavouritesProjection(), GroceriesProjection(), ExperiencesProjection(),
    ]

    package static var names: [String] { all.map(\.name) }

    package static func named(_ name: String) throws(ProjectionError) -> any Projection {
        guard let projection = all.first(where: { $0.name == name }) else { throw .unknownProjection(name) }
        return projection
    }
}

/// Bound and read as its string.
extension RecipeID: DatabaseValueConvertible {}
