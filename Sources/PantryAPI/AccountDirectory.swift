import Foundation
import Logging
import PantryBus
import PantryDomain
import PantryEventStore
import Synchronization
import ZeroMQ

/// username → (userId, password hash), the one read model the API keeps itself because login
/// needs it. Fed by `UserRegistered` events: caught up from the log at start, then kept current
/// from the event feed (gaps repaired from the log) by a thread of its own.
public final class AccountDirectory: Sendable {
    public struct Account: Sendable, Equatable {
        public var userId: UserID
        public var username: String
        public var passwordHash: String
    }

    /// What `/ready` reports.
    public struct Progress: Sendable {
        public var position: Int64
        public var announcedHead: Int64
        public var lastFeedMessage: ContinuousClock.Instant?
    }

    private struct State {
        var byUsername: [String: Account] = [:]
        var progress = Progress(position: 0, announcedHead: 0, lastFeedMessage: nil)
    }

    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Usernames are unique regardless of case (the domain's rule), so lookups ignore case too.
    public func account(named username: String) -> Account? {
        state.withLock { $0.byUsername[username.lowercased()] }
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
    public func start(context: ZMQContext, feed: String, logPath: String) {
        let thread = Thread { [self] in
            do {
                try follow(context: context, feed: feed, logPath: logPath)
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

    private func follow(context: ZMQContext, feed: String, logPath: String) throws {
        // The API may start before the core has created the log.
        var opened = try SQLiteEventStore.openForReading(path: logPath)
        while opened == nil {
            if stopping.load(ordering: .relaxed) { return }
            Thread.sleep(forTimeInterval: 0.2)
            opened = try SQLiteEventStore.openForReading(path: logPath)
        }
        guard let log = opened else { return }
        let follower = try EventFeedFollower(context: context, endpoint: feed, log: log, after: 0,
                                             types: [Self.eventType], logger: logger)
        let head = try log.headPosition()
        while follower.position < head {
            try apply(follower.readLog(), follower: follower, fedAt: nil)
        }
        logger.info("accounts loaded", metadata: ["position": "\(follower.position)", "accounts": "\(state.withLock { $0.byUsername.count })"])
        var poller = ZMQPoller()
        poller.register(follower.socket)
        while !stopping.load(ordering: .relaxed) {
            let readable = try poller.poll(timeoutMilliseconds: follower.isBehind ? 0 : 100).first?.contains(.readable) == true
            guard readable || follower.isBehind else { continue }
            try apply(follower.drain(), follower: follower, fedAt: readable ? ContinuousClock.now : nil)
        }
    }

    private static let eventType = "UserRegistered"

    private func apply(_ deliveries: [EventFeedFollower.Delivery], follower: EventFeedFollower,
                       fedAt: ContinuousClock.Instant?) throws {
        var accounts: [Account] = []
        for delivery in deliveries where delivery.recorded.type == Self.eventType {
            let recorded = delivery.recorded
            let event = try delivery.event ?? EventCoding.decode(
                type: recorded.type, schemaVersion: recorded.schemaVersion, data: recorded.data)
            if case .userRegistered(let e) = event {
                accounts.append(Account(userId: e.userId, username: e.username, passwordHash: e.passwordHash))
            }
        }
        state.withLock { state in
            for account in accounts { state.byUsername[account.username.lowercased()] = account }
            state.progress.position = follower.position
            state.progress.announcedHead = follower.announcedHead
            if let fedAt { state.progress.lastFeedMessage = fedAt }
        }
    }
}
