import Foundation
import Hummingbird
import PantryDomain
import PantryStandings
import Synchronization

/// The points leaderboard, kept in the API's memory from the feed (`APIFeed`), so that its reads,
/// the most frequent of all, cost no hop to the leaderboard worker. The worker's file stays the
/// durable copy that `pantry replay --verify` checks; the rules here are the same
/// (`LeaderboardStandings`, held to the file's answers by a test).
final class LeaderboardReadModel: FeedReadModel {
    enum Question: Hashable {
        case top(limit: Int)
        case entry(UserID)
        case around(UserID, radius: Int)
    }

    private struct State {
        var standings = LeaderboardStandings()
        var position: Int64 = 0
        /// Bumped whenever the standings change: an encoded result is good until then.
        var version = 0
        var results: [Question: Data] = [:]
    }

    static let resultCapacity = 10_000
    private let state = Mutex(State())
    /// Names the places restored from a snapshot without one, when they are first shown.
    private let accounts: AccountDirectory

    init(accounts: AccountDirectory) {
        self.accounts = accounts
    }

    var eventTypes: Set<EventType> { LeaderboardStandings.eventTypes }

    func apply(_ events: [(event: Event, position: Int64)], through position: Int64) {
        state.withLock { state in
            state.standings.apply(events)
            if !events.isEmpty {
                state.version += 1
                state.results.removeAll(keepingCapacity: true)
            }
            state.position = position
        }
    }

    /// The standings and the position they stand at, for a snapshot (a copy: the feed goes on).
    var standings: (standings: LeaderboardStandings, position: Int64) {
        state.withLock { ($0.standings, $0.position) }
    }

    /// Replaces the standings with a snapshot's, standing at `position`.
    func restore(_ standings: LeaderboardStandings, at position: Int64) {
        state.withLock { state in
            state.standings = standings
            state.position = position
            state.version += 1
            state.results.removeAll()
        }
    }

    /// The user's entry and the position it stands at; nil before the user's registration is read.
    func entry(_ userId: UserID) -> (entry: LeaderboardEntry?, position: Int64) {
        state.withLock { ($0.standings.entry(userId), $0.position) }
    }

    /// `{"position": P, "result": ...}`, as the leaderboard worker answers; 404 for the entry of a
    /// user it does not hold.
    func answer(_ question: Question) async throws -> Response {
        let (position, cached, version, found) = state.withLock { state -> (Int64, Data?, Int, [LeaderboardEntry]?) in
            if let cached = state.results[question] { return (state.position, cached, state.version, nil) }
            return (state.position, nil, state.version, Self.entries(question, in: state.standings))
        }
        let result: Data
        if let cached {
            result = cached
        } else {
            guard let found else {
                guard case .entry(let userId) = question else { preconditionFailure("only an entry can be missing") }
                throw Problem(.notFound, detail: "user \(userId) is not on the leaderboard")
            }
            let entries = try await named(found)
            // Encoded outside the lock, kept if nothing changed meanwhile.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            result = try question.isEntry ? encoder.encode(entries[0]) : encoder.encode(entries)
            state.withLock { state in
                if state.version == version, state.results.count < Self.resultCapacity { state.results[question] = result }
            }
        }
        var body = Data("{\"position\":\(position),\"result\":".utf8)
        body.append(result)
        body.append(UInt8(ascii: "}"))
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `entries` with the names of places restored without one read from their accounts, and given
    /// to the standings for the next answers. An account gone meanwhile (deleted: its place goes
    /// with the deletion) shows as erased.
    private func named(_ entries: [LeaderboardEntry]) async throws -> [LeaderboardEntry] {
        var entries = entries
        for index in entries.indices where entries[index].username == LeaderboardStandings.unresolvedName {
            let userId = entries[index].userId
            let name: String
            do {
                name = try await accounts.account(id: userId)?.username ?? LeaderboardEntry.erasedName
            } catch {
                throw Problem(.notCaughtUp, detail: "the log did not answer for a name on the leaderboard", headers: [.retryAfter: "1"])
            }
            entries[index].username = name
            state.withLock { $0.standings.name(userId, name) }
        }
        return entries
    }

    /// Nil for the entry of a user not on the leaderboard.
    private static func entries(_ question: Question, in standings: LeaderboardStandings) -> [LeaderboardEntry]? {
        switch question {
        case .top(let limit): standings.top(limit)
        case .entry(let userId): standings.entry(userId).map { [$0] }
        case .around(let userId, let radius): standings.around(userId, radius: radius)
        }
    }
}

private extension LeaderboardReadModel.Question {
    var isEntry: Bool {
        if case .entry = self { true } else { false }
    }
}
