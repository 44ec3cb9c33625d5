import DequeModule
import Foundation
import Logging
import PantryDomain
import ServiceLifecycle
import Synchronization

/// The open live streams (`GET /v1/me/live`) of this API process, fed by the API's one feed
/// subscription (`APIFeed`): each change is rendered once and queued for the streams of its user,
/// and the feed never waits for a stream. The last `resumeWindow` changes are kept, so a client
/// that reconnects (here or on another API process) with `Last-Event-ID` gets exactly what it
/// missed; a resume point older than them is read from the log once (at most `maxBackfill`
/// positions), and an older one still is told to reload (`reset`).
package final class LiveStreams: FeedReadModel, Service {
    struct Settings: Sendable {
        var heartbeat: Duration = .seconds(15)
        var resumeWindow = 50_000
        var maxBackfill: Int64 = 100_000
        /// What a stream may have queued and unwritten before it is closed (a client that stopped reading).
        var maxPendingBytes = 256 << 10
        /// Streams open at once in this process: at most half the connections, so streams can
        /// never take every connection from requests.
        var maxStreams = 2_048
        /// Streams of one user; a further one closes the user's oldest (a tab or phone gone away).
        var maxStreamsPerUser = 8
    }

    enum Opening {
        case streaming(LiveSubscription)
        /// Its resume point lies before what this process kept: the changes in `after...through`
        /// are to be read from the log, then `finishResume`.
        case resuming(LiveSubscription, after: Int64, through: Int64)
    }

    /// Why a stream cannot be opened now.
    enum Refusal: Error {
        case notStarted, stopping, full, revoked
    }

    private struct State {
        /// The position the changes are applied through; nil until the feed has loaded the accounts.
        var position: Int64?
        /// The window holds every change after this position.
        var floor: Int64 = 0
        var window = Deque<LiveChange>()
        var streams: [UInt64: LiveSubscription] = [:]
        var byUser: [UserID: [UInt64]] = [:]
        /// Streams whose backlog is being read from the log: what arrives meanwhile waits here.
        var resuming: [UInt64: [LiveChange]] = [:]
        var nextId: UInt64 = 0
        var stopping = false
    }

    let settings: Settings
    private let leaderboard: LeaderboardReadModel
    /// Applied before the streams in each batch (`APIFeed` applies the models first): a change
    /// goes to the household's members as they stand after the batch, so one who left in it gets
    /// none of what followed.
    private let households: HouseholdDirectory
    private let state = Mutex(State())
    private let logger: Logger

    init(settings: Settings, leaderboard: LeaderboardReadModel, households: HouseholdDirectory, logger: Logger) {
        self.settings = settings
        self.leaderboard = leaderboard
        self.households = households
        self.logger = logger
    }

    /// The changes, and the events that end streams: a logout, a new password, a deletion, leaving a household.
    package var eventTypes: Set<EventType> { LiveChange.eventTypes.union([.sessionRevoked, .passwordChanged, .userDeleted]) }

    var openStreams: Int { state.withLock { $0.streams.count } }

    /// Whose changes the window holds, in order (tests).
    var windowedUsers: [UserID] { state.withLock { $0.window.map(\.userId) } }

    /// The feed stands at `position` with every type of `eventTypes` followed from here on.
    package func start(at position: Int64) {
        state.withLock { state in
            state.position = position
            state.floor = position
        }
    }

    package func apply(_ events: [(event: Event, position: Int64)], through position: Int64) {
        var changes: [LiveChange] = []
        var endings: [(userId: UserID, tokenId: String?, kind: EventType)] = []
        for (event, at) in events {
            switch event {
            case .sessionRevoked(let e): endings.append((e.userId, e.tokenId, .sessionRevoked))
            case .passwordChanged(let e): endings.append((e.userId, nil, .passwordChanged))
            case .userDeleted(let e): endings.append((e.userId, nil, .userDeleted))
            case .pointEarned(let e):
                if let change = LiveChange(event, at: at, points: leaderboard.entry(e.userId).entry?.points) { changes.append(change) }
            default:
                if case .householdLeft(let e) = event { endings.append((e.userId, nil, .householdLeft)) }
                let members = event.householdId.map(households.members(of:)) ?? []
                if let change = LiveChange(event, at: at, members: members) { changes.append(change) }
            }
        }
        state.withLock { state in
            guard state.position != nil else { return }
            for change in changes {
                state.window.append(change)
                for userId in change.audience {
                    for id in state.byUser[userId] ?? [] {
                        // A stream reading its backlog from the log gets the change after it.
                        if state.resuming[id]?.append(change) == nil { state.streams[id]?.push(.change(change)) }
                    }
                }
            }
            while state.window.count > settings.resumeWindow, let oldest = state.window.popFirst() { state.floor = oldest.position }
            for ending in endings {
                // A deleted person's words leave memory with them (a resume of theirs can never come).
                if case .userDeleted = ending.kind { state.window.removeAll { $0.userId == ending.userId } }
                for id in state.byUser[ending.userId] ?? [] {
                    guard let stream = state.streams[id], ending.tokenId == nil || stream.tokenId == ending.tokenId else { continue }
                    // One who left a household reconnects to a stream of their own changes only.
                    stream.push(.end(reason: ending.kind == .householdLeft ? "left-household" : "revoked"))
                }
            }
            state.position = position
        }
    }

    /// Opens a stream for the session's user, after `lastEventId` when it resumes (`resetting`: one
    /// the client cannot resume from, told to reload). `isRevoked` is
    /// asked under the streams' lock: a logout the feed applies meanwhile is either seen by it or
    /// ends the stream once registered, never missed between the two.
    func open(userId: UserID, tokenId: String, expiresAt: Int64, lastEventId: Int64?, resetting: Bool = false, isRevoked: () -> Bool = { false },
              closeConnection: @escaping @Sendable () -> Void) throws(Refusal) -> Opening {
        try state.withLock { state throws(Refusal) -> Opening in
            guard !state.stopping else { throw .stopping }
            guard let position = state.position else { throw .notStarted }
            guard !isRevoked() else { throw .revoked }
            guard state.streams.count < settings.maxStreams else { throw .full }
            while (state.byUser[userId]?.count ?? 0) >= settings.maxStreamsPerUser, let oldest = state.byUser[userId]?.first,
                  let replaced = state.streams[oldest] {
                replaced.push(.end(reason: "replaced"))
                Self.forget(replaced, in: &state)
            }
            state.nextId += 1
            let id = state.nextId
            let after = lastEventId ?? position
            let stream = LiveSubscription(id: id, userId: userId, tokenId: tokenId, expiresAt: expiresAt, after: after,
                                          maxPendingBytes: settings.maxPendingBytes, closeConnection: closeConnection)
            state.streams[id] = stream
            state.byUser[userId, default: []].append(id)
            if resetting {
                stream.push(.reset(position: position))
                return .streaming(stream)
            }
            if lastEventId == nil || after >= state.floor {
                for change in state.window where change.audience.contains(userId) && change.position > after { stream.push(.change(change)) }
                // After the backlog: its id is the client's resume point from then on.
                stream.push(.heartbeat(position: max(after, position)))
                return .streaming(stream)
            }
            if state.floor - after > settings.maxBackfill {
                // Too far back to replay: the client reloads its screens and goes on from here.
                stream.push(.reset(position: position))
                return .streaming(stream)
            }
            state.resuming[id] = state.window.filter { $0.audience.contains(userId) }
            return .resuming(stream, after: after, through: state.floor)
        }
    }

    /// Queues a resumed stream's backlog read from the log, then what the window and the feed
    /// brought meanwhile, in log order.
    func finishResume(_ stream: LiveSubscription, backlog: [LiveChange]) {
        state.withLock { state in
            let held = state.resuming.removeValue(forKey: stream.id) ?? []
            let through = held.first.map { $0.position - 1 } ?? state.floor
            stream.push(contentsOf: backlog.filter { $0.position <= through }.map { .change($0) } + held.map { .change($0) })
            stream.push(.heartbeat(position: max(stream.after, state.position ?? 0)))
        }
    }

    /// The stream's request has ended: it is forgotten.
    func close(_ stream: LiveSubscription) {
        stream.end()
        state.withLock { Self.forget(stream, in: &$0) }
    }

    private static func forget(_ stream: LiveSubscription, in state: inout State) {
        state.streams[stream.id] = nil
        state.resuming[stream.id] = nil
        if let mine = state.byUser[stream.userId] {
            let left = mine.filter { $0 != stream.id }
            state.byUser[stream.userId] = left.isEmpty ? nil : left
        }
    }

    /// Heartbeats every `settings.heartbeat` until the group shuts down; then every stream is
    /// ended, so the HTTP server's graceful shutdown is not held by them, and their clients
    /// reconnect (to another API process, or this one restarted) with `Last-Event-ID`.
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: self.settings.heartbeat)) != nil else { break }
                let now = Int64(Date().timeIntervalSince1970)
                self.state.withLock { state in
                    guard let position = state.position else { return }
                    for stream in state.streams.values where state.resuming[stream.id] == nil {
                        // A token's end ends its stream, as it ends every request made with it.
                        stream.push(now >= stream.expiresAt ? .end(reason: "expired") : .heartbeat(position: max(stream.after, position)))
                    }
                    // Ended streams whose request is gone, or never wrote (their close() is then a no-op).
                    for stream in state.streams.values.filter(\.isEnded) { Self.forget(stream, in: &state) }
                }
            }
        }
        let ended = state.withLock { state in
            state.stopping = true
            for stream in state.streams.values { stream.push(.end(reason: "restart")) }
            return state.streams.count
        }
        logger.info("live streams ended for the shutdown", metadata: ["streams": "\(ended)"])
    }
}
