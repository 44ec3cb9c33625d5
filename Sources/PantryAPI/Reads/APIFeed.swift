import Foundation
import Logging
import PantryBus
import PantryDomain
import PantryLog
import Synchronization
import ZeroMQ
import PantryWire

/// A read model the API keeps in memory, fed by `APIFeed`.
protocol FeedReadModel: Sendable {
    /// The event types it reads.
    var eventTypes: Set<EventType> { get }
    /// Folds `events` (in log order, each with its position); the model then stands at `position`,
    /// which may lie past the last of them (events of other types in between).
    func apply(_ events: [(event: Event, position: Int64)], through position: Int64)
}

/// The API's own view of the log, for the read models it keeps in memory: the accounts (log-in
/// needs them) and the leaderboard (its most-read answer, served without a hop to a worker).
/// Caught up from the log at start, then kept current from the event feed (gaps repaired from the
/// log) by a thread of its own. One follower for all of them: one subscription, one read of the
/// log at start, and one position for `?after=` to wait on. Personal fields sealed in the log are
/// opened by the core's log service, or with `keys` when the log file is read here.
package final class APIFeed: Sendable {
    /// What `/ready` reports.
    package struct Progress: Sendable {
        package var position: Int64
        package var announcedHead: Int64
        package var lastFeedMessage: ContinuousClock.Instant?
        /// The log as it stood at start has been read: until then no account can be vouched for.
        package var loaded = false
    }

    private struct Waiter {
        var id: UInt64
        var position: Int64
        var continuation: CheckedContinuation<Bool, Never>
        /// Ends the wait at its timeout; cancelled when the position comes first, so no sleeping
        /// task outlives its wait (registration waits up to 3 s, hundreds of times a second).
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var progress = Progress(position: 0, announcedHead: 0, lastFeedMessage: nil)
        var waiters: [Waiter] = []
        var nextWaiterId: UInt64 = 0
    }

    private let models: [any FeedReadModel]
    private let eventTypes: Set<EventType>
    /// `eventTypes` as the log spells them, matched against every event delivered.
    private let eventTypeNames: Set<String>
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    /// A head read from the log by a request thread, for the follower to read up to at once.
    private let learntHead = Atomic<Int64>(0)
    private let keys: (any PersonalDataVault & Sendable)?
    private let logger: Logger

    /// Opens a reader of the log for its head (its own, beside the follower's); kept once open.
    private let openHeadReader: (@Sendable () throws -> (any EventLogReader)?)?
    private let headReader = Mutex<HeadReader>(HeadReader())
    private let headQueue = DispatchQueue(label: "pantry.api.feed.log-head")

    private struct HeadReader {
        var log: (any EventLogReader)?
        var lastRead: (began: ContinuousClock.Instant, head: Int64)?
    }

    init(models: [any FeedReadModel], keys: (any PersonalDataVault & Sendable)?, logger: Logger,
         openHeadReader: (@Sendable () throws -> (any EventLogReader)?)? = nil) {
        self.models = models
        eventTypes = models.reduce(into: Set<EventType>()) { $0.formUnion($1.eventTypes) }
        eventTypeNames = eventTypes.names
        self.keys = keys
        self.logger = logger
        self.openHeadReader = openHeadReader
    }

    package var progress: Progress { state.withLock { $0.progress } }

    /// Waits until the event at `position` has been applied, woken by the follower as soon as it
    /// is; false when `timeout` passed first.
    package func waitUntilApplied(_ position: Int64, timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLock { state in
                guard state.progress.position < position else { return nil }
                state.nextWaiterId += 1
                state.waiters.append(Waiter(id: state.nextWaiterId, position: position, continuation: continuation))
                return state.nextWaiterId
            }
            guard let id else { return continuation.resume(returning: true) }
            let timer = Task { [self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                let expired = state.withLock { state in
                    state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
                }
                expired?.continuation.resume(returning: false)
            }
            let waiting = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters[$0].timeout = timer } != nil
            }
            if !waiting { timer.cancel() }
        }
    }

    /// The log's head, asked of the log itself (the feed may be behind it), on a serial queue
    /// since that read blocks; callers that asked before a read began share it, so a crowd of
    /// them costs one read. Nil when the log does not answer. The follower reads up to it at once.
    func logHead() async -> Int64? {
        guard let openHeadReader else { return nil }
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
        if let head { learntHead.max(head, ordering: .relaxed) }
        return head
    }

    /// Waits (at most `timeout`) until the read models hold what the log held when it was called,
    /// so that an account registered, or a password changed, through another API process a moment
    /// ago is known here.
    package func catchUpWithLog(timeout: Duration) async {
        if let head = await logHead() { _ = await waitUntilApplied(head, timeout: timeout) }
    }

    /// Follows the log on a new thread until `stop()` and the context's shutdown. `open` gives the
    /// log, or nil while it does not exist yet (the API may start before the core).
    package func start(context: ZMQContext, feed: String, highWaterMark: Int, openLog open: @escaping @Sendable () throws -> (any EventLogReader)?) {
        let thread = Thread { [self] in
            do {
                try follow(context: context, feed: feed, highWaterMark: highWaterMark, open: open)
            } catch let error as ZMQError where error.isTerminated {
                logger.debug("the API's feed follower stopped")
            } catch {
                logger.critical("the API's feed follower failed", metadata: ["error": "\(error)"])
            }
        }
        thread.name = "api-feed"
        thread.start()
    }

    package func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    private func follow(context: ZMQContext, feed: String, highWaterMark: Int, open: () throws -> (any EventLogReader)?) throws {
        var opened = try open()
        while opened == nil {
            if stopping.load(ordering: .relaxed) { return }
            Thread.sleep(forTimeInterval: 0.2)
            opened = try open()
        }
        guard let log = opened else { return }
        let follower = try EventFeedFollower(context: context, endpoint: feed, log: log, after: 0,
                                             types: eventTypes, highWaterMark: highWaterMark, logger: logger)
        guard let head = try untilLogAnswers({ try log.headPosition() }) else { return }
        while follower.position < head {
            guard let batch = try untilLogAnswers({ try follower.readLog() }) else { return }
            try apply(batch, follower: follower, fedAt: nil)
        }
        state.withLock { $0.progress.loaded = true }
        logger.info("read models loaded", metadata: ["position": "\(follower.position)"])
        var poller = ZMQPoller()
        poller.register(follower.socket)
        while !stopping.load(ordering: .relaxed) {
            follower.learnHead(learntHead.load(ordering: .relaxed))
            // A read waiting for a position looks again soon: its head may have been learnt meanwhile.
            let idle = state.withLock { $0.waiters.isEmpty } ? 100 : 2
            let readable = try poller.poll(timeoutMilliseconds: follower.isBehind ? 0 : idle).first?.contains(.readable) == true
            guard readable || follower.isBehind else { continue }
            guard let batch = try untilLogAnswers({ try follower.drain() }) else { return }
            try apply(batch, follower: follower, fedAt: readable ? ContinuousClock.now : nil)
        }
    }

    /// Runs `body`, which reads the log, until the log answers (nil once stopping): while the core
    /// is down or restarting, the models keep what they have. Each try waits the log's timeout.
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

    private func apply(_ deliveries: [EventFeedFollower.Delivery], follower: EventFeedFollower,
                       fedAt: ContinuousClock.Instant?) throws {
        var events: [(event: Event, position: Int64)] = []
        for delivery in deliveries where eventTypeNames.contains(delivery.recorded.type) {
            let recorded = delivery.recorded
            events.append((try delivery.event ?? EventCoding.decode(
                type: recorded.type, schemaVersion: recorded.schemaVersion, data: recorded.data, vault: keys), recorded.position))
        }
        let position = follower.position
        for model in models { model.apply(events, through: position) }
        let ready = state.withLock { state in
            state.progress.position = position
            state.progress.announcedHead = follower.announcedHead
            if let fedAt { state.progress.lastFeedMessage = fedAt }
            let ready = state.waiters.filter { $0.position <= position }
            if !ready.isEmpty { state.waiters.removeAll { $0.position <= position } }
            return ready
        }
        for waiter in ready {
            waiter.timeout?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }
}

extension APIFeed {
    /// Before a read of a model kept here: refused while the log is still being read at start;
    /// with `?after=`, waits (bounded) until that position is applied, as a worker would, and
    /// refuses at once a position beyond the log's head, which may never be written.
    func readyToRead(after: Int64?) async throws {
        let progress = self.progress
        guard progress.loaded else {
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
