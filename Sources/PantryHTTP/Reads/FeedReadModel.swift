import PantryDomain

/// A read model the API keeps in memory, fed by the API's feed (`APIFeed`).
package protocol FeedReadModel: Sendable {
    /// The event types it reads.
    var eventTypes: Set<EventType> { get }
    /// Folds `events` (in log order, each with its position); the model then stands at `position`,
    /// which may lie past the last of them (events of other types in between).
    func apply(_ events: [(event: Event, position: Int64)], through position: Int64)
}
