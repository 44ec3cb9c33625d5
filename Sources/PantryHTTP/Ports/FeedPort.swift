import PantryDomain
import PantryWire

/// Where the API's feed stands: what `/ready` reports and what a read waits on.
package struct FeedProgress: Sendable {
    package var position: Int64
    package var announcedHead: Int64
    package var lastFeedMessage: ContinuousClock.Instant?
    /// Why the core's writes fail, as its last heartbeat said (a full disk, the log's server
    /// away); nil while they work.
    package var coreStorage: String?
    /// The log as it stood at start has been read: until then no account can be vouched for.
    package var loaded = false
    /// The models hold the log up to `position` (from the API's snapshot, or once loaded): the
    /// leaderboard may be answered, at the position it stands at.
    package var restored = false

    package init(position: Int64, announcedHead: Int64, lastFeedMessage: ContinuousClock.Instant?) {
        self.position = position
        self.announcedHead = announcedHead
        self.lastFeedMessage = lastFeedMessage
    }
}

/// The log as the API follows it: the position its read models have applied, a wait for a
/// position (`?after=`, a registration seen by the next log-in), the log's own head, and the live
/// changes a resumed stream missed.
package protocol FeedPort: Sendable {
    var progress: FeedProgress { get }
    /// Waits until the event at `position` has been applied; false when `timeout` passed first.
    func waitUntilApplied(_ position: Int64, timeout: Duration) async -> Bool
    /// The log's head, asked of the log itself (the feed may be behind it); nil when it does not answer.
    func logHead() async -> Int64?
    /// The live changes of `userId` (and of its household's list, cart and members) in `after...through`.
    func liveChanges(of userId: UserID, household: HouseholdID?, after: Int64, through: Int64) async throws -> [LiveChange]
}

extension FeedPort {
    /// Waits (at most `timeout`) until the read models hold what the log held when it was called,
    /// so that an account registered, or a password changed, through another API process a moment
    /// ago is known here.
    package func catchUpWithLog(timeout: Duration) async {
        if let head = await logHead() { _ = await waitUntilApplied(head, timeout: timeout) }
    }

    /// Before a read of a model kept here: refused while the log is still being read at start;
    /// with `?after=`, waits (bounded) until that position is applied, as a worker would, and
    /// refuses at once a position beyond the log's head, which may never be written.
    func readyToRead(after: Int64?) async throws {
        let progress = self.progress
        guard progress.restored else {
            throw Problem(.notCaughtUp,
                          detail: "the API is still reading the log (at position \(progress.position))", headers: [.retryAfter: "1"])
        }
        guard let after, after > progress.position else { return }
        // Announced positions are written; one past them is asked of the log, never of the feed.
        if after > progress.announcedHead, let head = await logHead(), after > head {
            throw Problem(.positionNotWritten, detail: "position \(after) is beyond the log's head (\(head))")
        }
        guard await waitUntilApplied(after, timeout: .milliseconds(QueryRequest.defaultWaitMilliseconds)) else {
            throw Problem(.notCaughtUp,
                          detail: "position \(after) was not applied in time; at \(self.progress.position)", headers: [.retryAfter: "1"])
        }
    }
}
