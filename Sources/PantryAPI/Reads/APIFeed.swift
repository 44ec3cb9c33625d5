import Foundation
import Logging
import PantryBus
import PantryDomain
import PantryHTTP
import NIOPosix
import PantryLog
import PantryThreads
import ServiceLifecycle
import Synchronization
import ZeroMQ
import PantryWire

/// The API's own view of the log, for the read models it keeps in memory: the accounts (log-in
/// needs them) and the leaderboard (its most-read answer, served without a hop to a worker).
/// Caught up from the log at start, then kept current from the event feed (gaps repaired from the
/// log) by a thread of its own, which owns the subscription's socket from `run()` until the group's
/// graceful shutdown. One follower for all of them: one subscription, one read of the log at start,
/// and one position for `?after=` to wait on. Personal fields sealed in the log are opened by the
/// core's log service, or with `keys` when the log file is read here.
package final class APIFeed: Service, FeedPort {
    private struct Waiter {
        var id: UInt64
        var position: Int64
        var continuation: CheckedContinuation<Bool, Never>
        /// Ends the wait at its timeout; cancelled when the position comes first, so no sleeping
        /// task outlives its wait (registration waits up to 3 s, hundreds of times a second).
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var progress = FeedProgress(position: 0, announcedHead: 0, lastFeedMessage: nil)
        var waiters: [Waiter] = []
        var nextWaiterId: UInt64 = 0
    }

    private let models: [any FeedReadModel]
    /// The live streams: applied with the models, but followed only from the moment the models
    /// are loaded (a stream shows what happens from then on), so a start reads none of their history.
    private let live: LiveStreams?
    /// The types the models read from the log's start.
    private let historyTypes: Set<EventType>
    private let eventTypes: Set<EventType>
    /// `eventTypes` as the log spells them, matched against every event delivered.
    private let eventTypeNames: Set<String>
    private let state = Mutex(State())
    /// A head read from the log by a request, for the follower to read up to at once.
    private let learntHead = Atomic<Int64>(0)
    private let keys: (any PersonalDataVault & Sendable)?
    private let logger: Logger

    private let context: ZMQContext
    private let feed: String
    private let highWaterMark: Int
    /// Gives the log, or nil while it does not exist yet (the API may start before the core).
    private let openLog: @Sendable () throws -> (any EventLogReader)?
    /// The follower's thread; woken when a request has learnt a head.
    private let thread: ServiceThread<Never>
    /// Where the models are kept between runs; nil for none.
    private let snapshots: APISnapshotFile?
    /// The position the follower starts after: the snapshot's, once restored.
    private let restoredAt = Atomic<Int64>(0)

    /// Opens a reader of the log for its head (its own, beside the follower's); kept once open.
    private let openHeadReader: (@Sendable () throws -> (any EventLogReader)?)?
    private let headReads = Mutex(HeadReads())

    private struct HeadReads {
        var log: (any EventLogReader)?
        var last: (began: ContinuousClock.Instant, head: Int64)?
        /// The read under way, and when it began.
        var current: (began: ContinuousClock.Instant, read: Task<Int64?, Never>)?
    }

    init(models: [any FeedReadModel], live: LiveStreams? = nil, keys: (any PersonalDataVault & Sendable)?, context: ZMQContext, feed: String,
         highWaterMark: Int = BusEndpoints.defaultFeedHighWaterMark,
         openLog: @escaping @Sendable () throws -> (any EventLogReader)?,
         openHeadReader: (@Sendable () throws -> (any EventLogReader)?)? = nil, snapshots: APISnapshotFile? = nil,
         logger: Logger) throws {
        self.models = models + [live].compactMap { $0 }
        self.live = live
        self.snapshots = snapshots
        historyTypes = models.reduce(into: Set<EventType>()) { $0.formUnion($1.eventTypes) }
        eventTypes = historyTypes.union(live?.eventTypes ?? [])
        eventTypeNames = eventTypes.names
        self.keys = keys
        self.logger = logger
        self.context = context
        self.feed = feed
        self.highWaterMark = highWaterMark
        self.openLog = openLog
        self.openHeadReader = openHeadReader
        thread = try ServiceThread(name: "api-feed")
    }

    package var progress: FeedProgress { state.withLock { $0.progress } }

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

    /// The log's head, asked of the log itself (the feed may be behind it), on NIO's pool for
    /// blocking work since that read blocks; callers that asked before a read began share the next
    /// one, so a crowd of them costs one read (and one pool thread). Nil when the log does not
    /// answer. The follower reads up to it at once.
    package func logHead() async -> Int64? {
        guard openHeadReader != nil else { return nil }
        let asked = ContinuousClock.now
        while true {
            let (read, began): (Task<Int64?, Never>, ContinuousClock.Instant) = headReads.withLock { reads in
                if let current = reads.current { return (current.read, current.began) }
                let began = ContinuousClock.now
                let read = Task { await readHead(began: began) }
                reads.current = (began, read)
                return (read, began)
            }
            let head = await read.value
            // A read that began before this call may have missed what the caller must see.
            if began >= asked { return head }
            if let last = headReads.withLock({ $0.last }), last.began >= asked { return last.head }
        }
    }

    /// The log reader beside the follower's, for head reads and live resumes: opened when first
    /// needed and kept; nil while the log does not exist yet. Blocking: call it on the pool.
    private func sideReader() throws -> (any EventLogReader)? {
        if let log = headReads.withLock({ $0.log }) { return log }
        let log = try openHeadReader?()
        headReads.withLock { $0.log = log }
        return log
    }

    private func readHead(began: ContinuousClock.Instant) async -> Int64? {
        let head = try? await NIOThreadPool.singleton.runIfActive { [self] () throws -> Int64? in
            let log = (try? sideReader()) ?? nil
            return try log?.headPosition()
        }
        headReads.withLock { reads in
            if let head { reads.last = (began, head) }
            reads.current = nil
        }
        if let head, learntHead.max(head, ordering: .relaxed).oldValue < head { thread.wake() }
        return head
    }

    /// The live changes of `userId` in `after...through`, read from the log once for a stream that
    /// resumes from before what `LiveStreams` kept; on NIO's pool for blocking work.
    /// A household's changes in the backlog go to its members as they stand now (the log read
    /// holds no history of who was a member when).
    package func liveChanges(of userId: UserID, household: HouseholdID?, after: Int64, through: Int64) async throws -> [LiveChange] {
        guard openHeadReader != nil, through > after else { return [] }
        return try await NIOThreadPool.singleton.runIfActive { [self] () throws -> [LiveChange] in
            guard let log = try sideReader() else { return [] }
            var changes: [LiveChange] = []
            var position = after
            // In slices, so a long backlog of other users' changes is never held at once.
            while position < through {
                let last = min(through, position + 10_000)
                for recorded in try log.read(after: position, through: last, types: LiveChange.eventTypes.names) {
                    let ownChange = recorded.metadata.userId == userId
                    // Only a household's events are decoded to see whose they are.
                    guard ownChange || (household != nil && Self.householdTypeNames.contains(recorded.type)) else { continue }
                    let event = try EventCoding.decode(type: recorded.type, schemaVersion: recorded.schemaVersion,
                                                       data: recorded.data, vault: keys)
                    guard ownChange || (household != nil && event.householdId == household) else { continue }
                    if let change = LiveChange(event, at: recorded.position, members: [userId]) { changes.append(change) }
                }
                position = last
            }
            return changes
        }
    }

    /// The types that can change a household's list, cart or members.
    private static let householdTypeNames = HouseholdDirectory.householdTypes
        .union([.groceryAdded, .groceryChecked, .groceryRemoved, .cartAdjusted, .cookingStarted]).names

    /// Follows the log on the feed's thread until the group shuts down gracefully (or the context
    /// does). A failure is logged and leaves the models as they are until the shutdown: the API
    /// goes on serving, and `/ready` tells that the feed is silent.
    package func run() async throws {
        do {
            try await thread.run { [self] thread in try follow(thread) }
        } catch let error as ZMQError where error.isTerminated {
            logger.debug("the API's feed follower stopped")
        } catch {
            logger.critical("the API's feed follower failed", metadata: ["error": "\(error)"])
            try? await gracefulShutdown()
        }
    }

    private func follow(_ thread: ServiceThread<Never>) throws {
        var opened = try openLog()
        while opened == nil {
            // Not a poll of this process's state: the core makes the log, and says nothing when it has.
            if thread.waitForWake(timeout: .milliseconds(200)) { _ = thread.takeMessages() }
            if thread.isStopping { return }
            opened = try openLog()
        }
        guard let log = opened else { return }
        let restored = restoredAt.load(ordering: .relaxed)
        let follower = try EventFeedFollower(context: context, endpoint: feed, log: log, after: restored,
                                             types: historyTypes, highWaterMark: highWaterMark, logger: logger)
        var snapshotAt = restored
        // Whatever stops the follower, the next start reads only what comes after this.
        defer { snapshotAtStop(log, after: snapshotAt) }
        guard let head = try untilLogAnswers(thread, { try log.headPosition() }) else { return }
        while follower.position < head {
            guard let batch = try untilLogAnswers(thread, { try follower.readLog() }) else { return }
            try apply(batch, follower: follower, fedAt: nil)
        }
        if let live {
            try follower.include(live.eventTypes)
            live.start(at: follower.position)
        }
        state.withLock { state in
            state.progress.loaded = true
            state.progress.restored = true
        }
        logger.info("read models loaded", metadata: ["position": "\(follower.position)", "from snapshot": "\(restored)"])
        snapshotIfDue(log, &snapshotAt)
        var poller = ZMQPoller()
        poller.register(follower.socket)
        poller.register(fileDescriptor: thread.wakeDescriptor)
        while !thread.isStopping {
            follower.learnHead(learntHead.load(ordering: .relaxed))
            // Asleep until the feed, a head learnt by a request (`logHead`) or the group's shutdown.
            let ready = try poller.poll(timeoutMilliseconds: follower.isBehind ? 0 : -1)
            if ready[1].contains(.readable) { _ = thread.takeMessages() }
            let readable = ready[0].contains(.readable)
            guard readable || follower.isBehind else { continue }
            guard let batch = try untilLogAnswers(thread, { try follower.drain() }) else { return }
            try apply(batch, follower: follower, fedAt: readable ? ContinuousClock.now : nil)
            snapshotIfDue(log, &snapshotAt)
        }
    }

    /// Puts the models back from the API's snapshot, if there is one and it belongs to the log,
    /// before the API serves: its first leaderboard read is then answered, at the snapshot's
    /// position, while the follower reads the rest. On NIO's pool for blocking work.
    package func restoreSnapshot() async {
        guard let snapshots else { return }
        let restored = try? await NIOThreadPool.singleton.runIfActive { [self] () throws -> Int64? in
            guard let log = try openLog() else { return nil }
            return snapshots.restore(from: log)
        }
        guard let position = restored ?? nil else { return }
        restoredAt.store(position, ordering: .relaxed)
        state.withLock { state in
            state.progress.position = position
            state.progress.restored = true
        }
    }

    /// Hands a snapshot to the background writer once `every` positions have been applied since
    /// the last one.
    private func snapshotIfDue(_ log: any EventLogReader, _ snapshotAt: inout Int64) {
        guard let snapshots else { return }
        let position = progress.position
        guard position - snapshotAt >= snapshots.every, let snapshot = snapshots.capture(at: position, log: log) else { return }
        snapshots.writeInBackground(snapshot)
        snapshotAt = position
    }

    /// The process ends after this: a write under way on the pool is waited for.
    private func snapshotAtStop(_ log: any EventLogReader, after snapshotAt: Int64) {
        guard let snapshots else { return }
        snapshots.waitForWrites()
        let position = progress.position
        guard position > snapshotAt, let snapshot = snapshots.capture(at: position, log: log) else { return }
        snapshots.writeNow(snapshot)
    }

    /// Runs `body`, which reads the log, until the log answers (nil once stopping): while the core
    /// is down or restarting, the models keep what they have. Each try waits the log's timeout.
    private func untilLogAnswers<T>(_ thread: ServiceThread<Never>, _ body: () throws -> T) throws -> T? {
        var warned = false
        while !thread.isStopping {
            do {
                return try body()
            } catch let error as RemoteEventStore.Unavailable {
                if !warned { logger.warning("could not read the log; retrying", metadata: ["error": "\(error)"]) }
                warned = true
            } catch EventStoreError.unavailable(let reason) {
                if !warned { logger.warning("could not read the log; retrying", metadata: ["error": "\(reason)"]) }
                warned = true
                // The PostgreSQL log fails at once while its server is away (its store paces the
                // reconnections): a pause between tries, against a server outside this process.
                Thread.sleep(forTimeInterval: 0.1)
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
            if let fedAt {
                state.progress.lastFeedMessage = fedAt
                state.progress.coreStorage = follower.coreStorage
            }
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
