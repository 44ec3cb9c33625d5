import Foundation
import Logging
import PantryBus
import PantryDomain
import PantryEventStore
import PantryKeys
import Synchronization
import ZeroMQ

/// The accounts (id, name, email, password hash), the one read model the API keeps itself because
/// log-in needs it. Fed by `UserRegistered`, `PasswordChanged` and `UserDeleted` events, whose
/// personal fields it opens with the users' keys: caught up from the log at start, then kept
/// current from the event feed (gaps repaired from the log) by a thread of its own.
public final class AccountDirectory: Sendable {
    public struct Account: Sendable, Equatable {
        public var userId: UserID
        public var username: String
        public var email: String
        public var passwordHash: String
        /// How many times the password changed: tokens issued before the last change are refused.
        public var credentialsGeneration: Int
    }

    /// What `/ready` reports.
    public struct Progress: Sendable {
        public var position: Int64
        public var announcedHead: Int64
        public var lastFeedMessage: ContinuousClock.Instant?
        /// The log as it stood at start has been read: until then no account can be vouched for.
        public var loaded = false
    }

    private struct State {
        var byUserId: [UserID: Account] = [:]
        /// Username skeleton (look-alikes are one name) and lower-cased email to user.
        var byName: [String: UserID] = [:]
        var byEmail: [String: UserID] = [:]
        var progress = Progress(position: 0, announcedHead: 0, lastFeedMessage: nil)

        mutating func forget(_ userId: UserID) {
            guard let account = byUserId.removeValue(forKey: userId) else { return }
            byName[Username.skeleton(account.username)] = nil
            byEmail[account.email.lowercased()] = nil
        }
    }

    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let keys: UserKeyStore
    private let logger: Logger

    public init(keys: UserKeyStore, logger: Logger) {
        self.keys = keys
        self.logger = logger
    }

    /// By username (any look-alike of it) or, when it has an '@', by email.
    public func account(named login: String) -> Account? {
        state.withLock { state in
            let userId = login.contains("@") ? state.byEmail[login.lowercased()] : state.byName[Username.skeleton(login)]
            return userId.flatMap { state.byUserId[$0] }
        }
    }

    public func account(id userId: UserID) -> Account? {
        state.withLock { $0.byUserId[userId] }
    }

    public var progress: Progress { state.withLock { $0.progress } }

    /// Waits until the event at `position` has been applied; false when `timeout` passed first.
    public func waitUntilApplied(_ position: Int64, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.progress.position }) < position {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(5))) != nil else { return false }
        }
        return true
    }

    /// Follows the log on a new thread until `stop()` and the context's shutdown.
    public func start(context: ZMQContext, feed: String, openLog: @escaping @Sendable () throws -> (any EventStore)?) {
        let thread = Thread { [self] in
            do {
                try follow(context: context, feed: feed, openLog: openLog)
            } catch let error as ZMQError where error.isTerminated {
                logger.debug("account directory stopped")
            } catch {
                logger.critical("account directory failed", metadata: ["error": "\(error)"])
            }
        }
        thread.name = "account-directory"
        thread.start()
    }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    private func follow(context: ZMQContext, feed: String, openLog: () throws -> (any EventStore)?) throws {
        // The API may start before the core has created the log.
        var opened = try openLog()
        while opened == nil {
            if stopping.load(ordering: .relaxed) { return }
            Thread.sleep(forTimeInterval: 0.2)
            opened = try openLog()
        }
        guard let log = opened else { return }
        let follower = try EventFeedFollower(context: context, endpoint: feed, log: log, after: 0,
                                             types: Self.eventTypes, logger: logger)
        let head = try log.headPosition()
        while follower.position < head {
            try apply(follower.readLog(), follower: follower, fedAt: nil)
        }
        state.withLock { $0.progress.loaded = true }
        logger.info("accounts loaded", metadata: ["position": "\(follower.position)", "accounts": "\(state.withLock { $0.byUserId.count })"])
        var poller = ZMQPoller()
        poller.register(follower.socket)
        while !stopping.load(ordering: .relaxed) {
            let readable = try poller.poll(timeoutMilliseconds: follower.isBehind ? 0 : 100).first?.contains(.readable) == true
            guard readable || follower.isBehind else { continue }
            try apply(follower.drain(), follower: follower, fedAt: readable ? ContinuousClock.now : nil)
        }
    }

    private static let eventTypes: Set<String> = ["UserRegistered", "PasswordChanged", "UserDeleted"]

    private func apply(_ deliveries: [EventFeedFollower.Delivery], follower: EventFeedFollower,
                       fedAt: ContinuousClock.Instant?) throws {
        var events: [Event] = []
        for delivery in deliveries where Self.eventTypes.contains(delivery.recorded.type) {
            let recorded = delivery.recorded
            events.append(try delivery.event ?? EventCoding.decode(
                type: recorded.type, schemaVersion: recorded.schemaVersion, data: recorded.data, vault: keys))
        }
        state.withLock { state in
            for event in events {
                switch event {
                case .userRegistered(let e):
                    guard let details = e.account else { continue } // erased: its deletion follows
                    state.byUserId[e.userId] = Account(userId: e.userId, username: details.username, email: details.email,
                                                       passwordHash: details.passwordHash, credentialsGeneration: 0)
                    state.byName[Username.skeleton(details.username)] = e.userId
                    state.byEmail[details.email.lowercased()] = e.userId
                case .passwordChanged(let e):
                    guard let hash = e.passwordHash else { continue }
                    state.byUserId[e.userId]?.passwordHash = hash
                    state.byUserId[e.userId]?.credentialsGeneration += 1
                case .userDeleted(let e):
                    state.forget(e.userId)
                default:
                    break
                }
            }
            state.progress.position = follower.position
            state.progress.announcedHead = follower.announcedHead
            if let fedAt { state.progress.lastFeedMessage = fedAt }
        }
    }
}
