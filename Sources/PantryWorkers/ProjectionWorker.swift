import Foundation
import Logging
import GRDB
import PantryBus
import PantryDomain
import PantryLog
import PantryProjections
import PantryThreads
import ServiceLifecycle
import ZeroMQ
import PantryWire

/// A worker process: keeps one projection up to date from the event feed (the log fills every gap)
/// and answers queries about it on a ROUTER socket. One thread of its own owns the sockets and the
/// file, from `run()` until the group's graceful shutdown.
///
/// Queries are answered by the worker rather than read from its file by other processes because
/// the worker knows exactly which position it has applied: a query that must see a given command
/// (`after`) is parked until then, with no polling, and a rebuilt file is swapped in here, between
/// two turns of the loop (the `swap` query that `pantry replay` sends).
package final class ProjectionWorker: Service {
    private let store: ProjectionStore
    private let log: any EventLogReader
    private let context: ZMQContext
    private let feed: String
    private let feedHighWaterMark: Int
    private let queryEndpoint: String
    private let snapshots: ProjectionSnapshots?
    private let erased: (@Sendable () -> Void)?
    private let thread: ServiceThread<Never>
    private let logger: Logger

    /// `snapshots`: the copies this worker leaves for the log service, removed at each deletion it
    /// applies. `erased`: called once a batch holding a deletion is committed, to empty the file's
    /// WAL, whose older frames still hold what the deletion erased (`BackgroundCheckpointer.eraseWAL`).
    package init(store: ProjectionStore, log: any EventLogReader, context: ZMQContext, feed: String,
                 feedHighWaterMark: Int = BusEndpoints.defaultFeedHighWaterMark, queryEndpoint: String,
                 snapshots: ProjectionSnapshots? = nil, erased: (@Sendable () -> Void)? = nil, logger: Logger) throws {
        self.store = store
        self.snapshots = snapshots
        self.erased = erased
        self.log = log
        self.context = context
        self.feed = feed
        self.feedHighWaterMark = feedHighWaterMark
        self.queryEndpoint = queryEndpoint
        self.logger = logger
        thread = try ServiceThread(name: "worker")
    }

    /// Binds the query socket, subscribes to the feed and serves until the group shuts down
    /// gracefully or the context is shut down.
    package func run() async throws {
        try await thread.run { [self] thread in
            try WorkerLoop(store: store, log: log, context: context, feed: feed, feedHighWaterMark: feedHighWaterMark,
                           queryEndpoint: queryEndpoint, snapshots: snapshots, erased: erased, thread: thread, logger: logger).run()
        }
    }
}

/// What the worker's thread owns: the feed's and the queries' sockets, and the queries parked.
private final class WorkerLoop {
    private let store: ProjectionStore
    private let worker: WorkerName
    private let log: any EventLogReader
    private let follower: EventFeedFollower
    private let queries: ZMQSocket
    private let snapshots: ProjectionSnapshots?
    private let erased: (@Sendable () -> Void)?
    private let thread: ServiceThread<Never>
    private let logger: Logger
    private let encoder = JSONEncoder()
    private var parked: [(route: [Data], request: QueryRequest, deadline: ContinuousClock.Instant)] = []
    private let clock = ContinuousClock()
    private static let queriesPerTurn = 256
    /// The last turn stopped at `queriesPerTurn` with queries possibly still waiting.
    private var queriesPending = false
    /// Encoded answers at the current checkpoint: the same question (top 10, say) asked again
    /// before the next event is answered without a transaction or an encoder.
    private var answers = ProjectionQueries.QueryReplyCache()
    /// The checkpoint in the file. The follower runs ahead of it over events of types this
    /// projection ignores: a transaction each would cost more than everything else a worker does
    /// for them, so the file catches up with the next event it reads, when the worker is idle, or
    /// after `maxUnwrittenPositions`. The state is the same at both positions.
    private var written: Int64
    private static let maxUnwrittenPositions: Int64 = 1_000
    /// Set when the file could not be written (a full disk): until then only queries are served.
    private var writesPausedUntil: ContinuousClock.Instant?
    private var nextReport = ContinuousClock.now

    init(store: ProjectionStore, log: any EventLogReader, context: ZMQContext, feed: String,
         feedHighWaterMark: Int, queryEndpoint: String, snapshots: ProjectionSnapshots?, erased: (@Sendable () -> Void)?,
         thread: ServiceThread<Never>, logger: Logger) throws {
        self.store = store
        self.snapshots = snapshots
        self.erased = erased
        worker = WorkerName(store.projection)
        self.log = log
        self.thread = thread
        self.logger = logger
        encoder.outputFormatting = [.withoutEscapingSlashes]
        written = try store.checkpoint
        follower = try EventFeedFollower(context: context, endpoint: feed, log: log, after: written,
                                         types: store.projection.eventTypes, highWaterMark: feedHighWaterMark, logger: logger)
        queries = try ZMQSocket(context: context, type: .router)
        try queries.setMaxMessageSize(64 << 10)
        try queries.bindReplacingStaleFile(queryEndpoint)
    }

    /// Serves until the group's graceful shutdown (or the context's).
    func run() throws {
        logger.info("worker serving", metadata: ["projection": "\(store.projection.name)", "checkpoint": "\(follower.position)"])
        // Start from the log up to its head, without waiting for the first heartbeat: batches of
        // 10,000 positions, between which queries are answered.
        let started = clock.now
        try readingLog {
            follower.learnHead(try log.headPosition())
            try write(follower.readLog())
        }
        var catchingUp = follower.isBehind
        nextReport = clock.now + (catchingUp ? .seconds(1) : .seconds(10))
        var poller = ZMQPoller()
        poller.register(follower.socket)
        poller.register(queries)
        poller.register(fileDescriptor: thread.wakeDescriptor)
        var queriesOnly = ZMQPoller()
        queriesOnly.register(queries)
        queriesOnly.register(fileDescriptor: thread.wakeDescriptor)
        do {
            while !thread.isStopping {
                if let until = writesPausedUntil, clock.now < until {
                    // A retry against what is outside the process (the disk, the core's log
                    // service): the pause is its backoff, not a poll.
                    let pause = Int(((until - clock.now) / .milliseconds(1)).rounded(.up))
                    let ready = try queriesOnly.poll(timeoutMilliseconds: queriesPending ? 0 : min(pause, pollTimeout()))
                    if ready[1].contains(.readable) { _ = thread.takeMessages() }
                    if ready[0].contains(.readable) || queriesPending { try receiveQueries() }
                    answerParked()
                    continue
                }
                writesPausedUntil = nil
                let busy = follower.isBehind || queriesPending
                let ready = try poller.poll(timeoutMilliseconds: busy ? 0 : pollTimeout())
                if ready[2].contains(.readable) { _ = thread.takeMessages() }
                if ready[0].contains(.readable) || follower.isBehind {
                    try readingLog { try apply(follower.drain()) }
                } else {
                    try write([])   // idle: let the file (and `pantry status`) catch up
                }
                if ready[1].contains(.readable) || queriesPending { try receiveQueries() }
                answerParked()
                if catchingUp, !follower.isBehind {
                    catchingUp = false
                    logger.info("caught up", metadata: ["checkpoint": "\(follower.position)", "seconds": "\((clock.now - started) / .seconds(1))"])
                }
                // Every second while catching up at start (a fresh file on a long log), else every 10 s.
                if clock.now >= nextReport {
                    nextReport = clock.now + (catchingUp ? .seconds(1) : .seconds(10))
                    logger.info("progress", metadata: [
                        "checkpoint": "\(follower.position)", "head": "\(follower.announcedHead)",
                        "fromLog": "\(follower.eventsReadFromLog)", "gapsHealed": "\(follower.gapsHealed)",
                    ])
                }
            }
        } catch let error as ZMQError where error.isTerminated {}
        logger.info("worker stopped", metadata: ["checkpoint": "\(follower.position)"])
    }

    /// Runs `body`, which reads the log. When the core's log service does not answer (the core is
    /// down or restarting), or the PostgreSQL log's server cannot be reached, nothing was applied: the worker answers queries at what it has and
    /// reads again a second later, as after a full disk. Messages taken off the feed meanwhile
    /// are read from the log then (the follower's position did not move past them).
    private func readingLog(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as RemoteEventStore.Unavailable {
            logger.warning("could not read the log; retrying in 1 s", metadata: ["error": "\(error)", "checkpoint": "\(written)"])
            writesPausedUntil = clock.now + .seconds(1)
        } catch let error as EventStoreError {
            guard case .unavailable = error else { throw error }
            logger.warning("could not read the log; retrying in 1 s", metadata: ["error": "\(error)", "checkpoint": "\(written)"])
            writesPausedUntil = clock.now + .seconds(1)
        }
    }

    /// Applies what the follower handed back (it continues the follower's previous position
    /// without a hole). Events this projection ignores alone are not worth a transaction.
    private func apply(_ events: [EventFeedFollower.Delivery]) throws {
        let types = store.eventTypeNames
        guard events.contains(where: { types.contains($0.recorded.type) })
            || follower.position - written >= Self.maxUnwrittenPositions else { return }
        try write(events)
    }

    /// Folds `events` and moves the file's checkpoint to the follower's position; with no events,
    /// only the checkpoint moves (over events this projection ignores).
    private func write(_ events: [EventFeedFollower.Delivery]) throws {
        let through = follower.position
        guard through > written else { return }
        do {
            try store.apply(decoded: events, after: written, through: through)
            written = through
            // A copy left for the log service before this deletion still holds the person's rows,
            // and so do the WAL's frames from before it.
            if events.contains(where: { $0.recorded.type == EventType.userDeleted.rawValue }) {
                snapshots?.erased(through: through)
                erased?()
            }
        } catch let error as ProjectionError {
            // The follower and the file disagree (the file was rebuilt, say): trust the file.
            written = try store.checkpoint
            logger.warning("could not apply a batch; resuming from the file's checkpoint",
                           metadata: ["error": "\(error)", "checkpoint": "\(written)"])
            follower.rewind(to: written)
        } catch let error as DatabaseError where [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_BUSY].contains(error.resultCode) {
            // A full disk, say: nothing of the batch was applied. The worker stays up, answers
            // queries at what it has, and reads the batch from the log again a second later.
            logger.error("could not write the projection; retrying from the log in 1 s",
                         metadata: ["error": "\(error)", "checkpoint": "\(written)"])
            follower.rewind(to: written)
            writesPausedUntil = clock.now + .seconds(1)
        }
    }

    /// Until what is due next: the nearest parked query's deadline, the file's idle write (100 ms
    /// after the feed went quiet) or the progress report. The feed, a query or the group's
    /// shutdown wake the loop before.
    private func pollTimeout() -> Int {
        var due = nextReport
        if follower.position > written { due = min(due, clock.now + .milliseconds(100)) }
        if let nearest = parked.map(\.deadline).min() { due = min(due, nearest) }
        return max(0, Int(((due - clock.now) / .milliseconds(1)).rounded(.up)))
    }

    /// Answers at most `queriesPerTurn` queries, then lets the loop apply the feed: a flood of
    /// reads must not stop the projection from moving (it did: 10,000 positions behind).
    private func receiveQueries() throws {
        queriesPending = false
        for _ in 0..<Self.queriesPerTurn {
            guard let frames = try queries.receive(dontWait: true) else { return }
            guard frames.count >= 2 else { continue }
            let route = Array(frames.dropLast())
            let request: QueryRequest
            do {
                request = try QueryRequest(json: frames[frames.count - 1], worker: worker)
            } catch let unknown as QueryRequest.UnknownQuery {
                try send(route, failure: .badQuery(unknown.description))
                continue
            } catch {
                try send(route, failure: .badQuery("the query is not a JSON object of the documented shape: \(error)"))
                continue
            }
            if case .swap = request.query {
                try swapInRebuild(route)
                continue
            }
            if let after = request.after, after > follower.position {
                // Every position a client was given is in the log: one beyond its head never will be.
                // One that is there but not announced yet (an event of a type this worker does not
                // subscribe to) is read from the log now, not at the next heartbeat.
                if after > follower.announcedHead {
                    do {
                        let head = try log.headPosition()
                        guard after <= head else {
                            try send(route, failure: QueryError(
                                code: .positionNotWritten, message: "position \(after) is beyond the log's head (\(head))"))
                            continue
                        }
                        follower.learnHead(head)
                    } catch is RemoteEventStore.Unavailable {
                        // Without the log (the core is down) the query waits like any other.
                    } catch EventStoreError.unavailable {
                        // As without the PostgreSQL log's server.
                    }
                }
                let wait = min(max(request.wait ?? QueryRequest.defaultWaitMilliseconds, 0), QueryRequest.maxWaitMilliseconds)
                parked.append((route, request, clock.now + .milliseconds(wait)))
            } else {
                try answer(route, request)
            }
        }
        queriesPending = true
    }

    /// `pantry replay` while this worker runs: the finished rebuild beside the file replaces its
    /// state (`ProjectionStore.adopt`, brought first to the position applied here, so no answer
    /// ever goes back), and the feed goes on from there. Queries wait in the socket meanwhile;
    /// parked ones are answered from the new state. Whoever may query the worker may ask, but it
    /// only adopts a whole rebuild, which it consumes: the state is the one the log gives.
    private func swapInRebuild(_ route: [Data]) throws {
        let rebuilt = Replayer.rebuiltURL(of: URL(fileURLWithPath: store.path))
        guard FileManager.default.fileExists(atPath: rebuilt.path) else {
            try send(route, failure: QueryError(
                code: .notFound, message: "there is no finished rebuild at \(rebuilt.path): run pantry replay \(worker)"))
            return
        }
        let started = clock.now
        logger.notice("swapping in a rebuild", metadata: ["rebuild": "\(rebuilt.path)", "checkpoint": "\(written)"])
        do {
            written = try store.adopt(rebuilt: rebuilt, catchingUpFrom: log, through: follower.position)
        } catch {
            logger.error("could not swap in the rebuild; the file is as it was", metadata: ["error": "\(error)"])
            try send(route, failure: QueryError(code: .swapFailed, message: "\(error)"))
            return
        }
        // A rebuild that went further than this worker (one behind on the feed) is trusted.
        if written != follower.position { follower.rewind(to: written) }
        answers = ProjectionQueries.QueryReplyCache()
        // The copies left for the log service hold the state replaced (possibly the wrong one
        // that made the operator replay): none taken before the swap may stay or be published.
        snapshots?.erased(through: written)
        let milliseconds = Int((clock.now - started) / .milliseconds(1))
        logger.notice("swapped in a rebuild", metadata: ["checkpoint": "\(written)", "milliseconds": "\(milliseconds)"])
        try queries.send(route + [encoder.encode(QueryReply(position: follower.position,
                                                            result: SwapReport(checkpoint: written, milliseconds: milliseconds)))],
                         dontWait: true)
    }

    private struct SwapReport: Encodable {
        var checkpoint: Int64
        var milliseconds: Int
    }

    private func answerParked() {
        guard !parked.isEmpty else { return }
        let now = clock.now
        var waiting: [(route: [Data], request: QueryRequest, deadline: ContinuousClock.Instant)] = []
        for entry in parked {
            do {
                if let after = entry.request.after, after > follower.position {
                    if now < entry.deadline {
                        waiting.append(entry)
                        continue
                    }
                    try send(entry.route, failure: QueryError(
                        code: .notCaughtUp, message: "position \(after) was not applied in time; at \(follower.position)"))
                } else {
                    try answer(entry.route, entry.request)
                }
            } catch {
                logger.warning("could not answer a parked query", metadata: ["error": "\(error)"])
            }
        }
        parked = waiting
    }

    private func answer(_ route: [Data], _ request: QueryRequest) throws {
        if let cached = answers.reply(to: request, at: follower.position) {
            try queries.send(route + [cached], dontWait: true)
            return
        }
        do {
            let feed = ProjectionQueries.FeedStatus(
                projection: store.projection.name, announcedHead: follower.announcedHead,
                eventsReadFromLog: follower.eventsReadFromLog, gapsHealed: follower.gapsHealed)
            let reply = try ProjectionQueries.answer(request, store: store,
                                                     position: follower.position, feed: feed, encoder: encoder)
            answers.remember(reply, for: request, at: follower.position)
            try queries.send(route + [reply], dontWait: true)
        } catch let error as QueryError {
            try send(route, failure: error)
        }
    }

    private func send(_ route: [Data], failure: QueryError) throws {
        let body = try encoder.encode(QueryFailure(position: follower.position, error: failure))
        try queries.send(route + [body], dontWait: true)
    }
}
