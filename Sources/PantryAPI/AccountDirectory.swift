import Foundation
import Logging
import PantryBus
import PantryDomain
import PantryEventStore
import Synchronization
import ZeroMQ

/// The accounts (id, name, email, password hash), the one read model the API keeps itself because
/// log-in needs it, and the revoked tokens. Fed by `UserRegistered`, `PasswordChanged`,
/// `UserDeleted` and `SessionRevoked` events, whose
/// personal fields the core's log service opens (or `keys`, reading the file): caught up from the log at start, then kept
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
    private let revocations: RevocationList
    /// Opens sealed fields read from the log's file; nil when the log service opens them.
    private let keys: (any PersonalDataVault & Sendable)?
    private let logger: Logger

    /// Opens a reader of the log for its head (its own, beside the follower's); kept once open.
    private let openHeadReader: (@Sendable () throws -> (any EventStore)?)?
    private let headReader = Mutex<HeadReader>(HeadReader())
    private let headQueue = DispatchQueue(label: "pantry.api.accounts.log-head")

    private struct HeadReader {
        var log: (any EventStore)?
        var lastRead: (began: ContinuousClock.Instant, head: Int64)?
    }

    public init(revocations: RevocationList, logger: Logger, keys: (any PersonalDataVault & Sendable)?,
                openHeadReader: (@Sendable () throws -> (any EventStore)?)? = nil) {
        self.revocations = revocations
        self.openHeadReader = openHeadReader
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

    /// Waits (at most `timeout`) until this directory holds what the log held when it was called,
    /// so that an account registered, or a password changed, through another API process a moment
    /// ago is known here. The head is asked of the log itself (the feed may be behind it), on a
    /// serial queue since that read blocks; callers that asked before a read began share it, so a
    /// crowd of them costs one read.
    public func catchUpWithLog(timeout: Duration) async {
        guard let openHeadReader else { return }
        let asked = ContinuousClock.now
        let head: Int64? = await withCheckedContinuation { continuation in
            headQueue.async { [self] in
                continuation.resume(returning: headReader.withLock { reader -> Int64? in
                    if let last = reader.lastRead, last.began > asked { return last.head }
                    if reader.log == nil { reader.log = (try? openHeadReader()) ?? nil }
                    let began = ContinuousClock.now
                    guard let head = try? reader.log?.headPosition() else { return nil }
                    reader.lastRead = (began, head)
                    return head
                })
            }
        }
        if let head { _ = await waitUntilApplied(head, timeout: timeout) }
    }

    /// Follows the log on a new thread until `stop()` and the context's shutdown. `open` gives the
    /// log, or nil while it does not exist yet (the API may start before the core).
    public func start(context: ZMQContext, feed: String, openLog open: @escaping @Sendable () throws -> (any EventStore)?) {
        let thread = Thread { [self] in
            do {
                try follow(context: context, feed: feed, open: open)
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

    private func follow(context: ZMQContext, feed: String, open: () throws -> (any EventStore)?) throws {
        var opened = try open()
        while opened == nil {
            if stopping.load(ordering: .relaxed) { return }
            Thread.sleep(forTimeInterval: 0.2)
            opened = try open()
        }
        guard let log = opened else { return }
        let follower = try EventFeedFollower(context: context, endpoint: feed, log: log, after: 0,
                                             types: Self.eventTypes, logger: logger)
        guard let head = try untilLogAnswers({ try log.headPosition() }) else { return }
        while follower.position < head {
            guard let batch = try untilLogAnswers({ try follower.readLog() }) else { return }
            try apply(batch, follower: follower, fedAt: nil)
        }
        state.withLock { $0.progress.loaded = true }
        logger.info("accounts loaded", metadata: ["position": "\(follower.position)", "accounts": "\(state.withLock { $0.byUserId.count })"])
        var poller = ZMQPoller()
        poller.register(follower.socket)
        while !stopping.load(ordering: .relaxed) {
            let readable = try poller.poll(timeoutMilliseconds: follower.isBehind ? 0 : 100).first?.contains(.readable) == true
            guard readable || follower.isBehind else { continue }
            guard let batch = try untilLogAnswers({ try follower.drain() }) else { return }
            try apply(batch, follower: follower, fedAt: readable ? ContinuousClock.now : nil)
        }
    }

    /// Runs `body`, which reads the log, until the log answers (nil once stopping): while the core
    /// is down or restarting, the directory keeps what it has. Each try waits the log's timeout.
    private func untilLogAnswers<T>(_ body: () throws -> T) throws -> T? {
        var warned = false
        while !stopping.load(ordering: .relaxed) {
            do {
                return try body()
            } catch let error as RemoteEventStore.Unavailable {
                if !warned { logger.warning("could not read the log; retrying", metadata: ["error": "\(error)"]) }
                warned = true
            }
        }
        return nil
    }

    private static let eventTypes: Set<String> = ["UserRegistered", "PasswordChanged", "UserDeleted", "SessionRevoked"]

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
                case .sessionRevoked(let e):
                    revocations.revoke(e.tokenId, expiresAt: e.expiresAt)
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
