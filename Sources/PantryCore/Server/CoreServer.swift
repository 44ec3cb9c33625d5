import Foundation
import Logging
import PantryDomain
import PantryEventStore
import PantryThreads
import ServiceLifecycle
import Synchronization
import ZeroMQ
import PantryWire
import PantryBus

/// The core process: the single writer of the log. Commands arrive on a ROUTER socket, one per
/// message or many in a batch frame (`CommandBatch`, answered by one frame); every
/// command waiting at that moment is decided and group-committed as one batch; each is answered;
/// and only then are the batch's events published on the PUB socket. One thread of its own owns
/// both sockets and the processor, from `run()` until the group's graceful shutdown.
package final class CoreServer: Service {
    package struct Configuration: Sendable {
        package var endpoints: BusEndpoints
        package var maxBatch = 4096
        /// How often the head position is published when nothing else is.
        package var heartbeatInterval: Duration = .milliseconds(200)
        /// How often the heartbeat's word on the storage is checked (`CommandProcessor.checkStorage`).
        package var storageCheckInterval: Duration = .seconds(1)
        /// Larger messages make libzmq drop the sender; bodies above `CommandCoding.maxDocumentBytes`
        /// but below this get a `too_large` answer instead.
        package var maxMessageBytes: Int64 = 16 << 20
        /// Answers queued for one client that does not read them.
        package var replyHighWaterMark = 1_000_000

        package init(endpoints: BusEndpoints) { self.endpoints = endpoints }

        /// Slow subscribers drop messages beyond this and catch up from the log. The setting counts
        /// events; a message holds up to `FeedMessage.maxEventsPerMessage`, so a subscriber that
        /// stopped reading still holds about as many bytes as when each event was a message.
        var publishHighWaterMark: Int {
            max(1, (endpoints.feedHighWaterMark + FeedMessage.maxEventsPerMessage - 1) / FeedMessage.maxEventsPerMessage)
        }
    }

    /// Batches decided and the commands they held, for benchmarks and tests, read from any thread.
    package final class BatchCounts: Sendable {
        package let batches = Atomic<Int>(0)
        package let commands = Atomic<Int>(0)
    }
    package let batchCounts = BatchCounts()
    private let processor: Handover<CommandProcessor>
    private let context: ZMQContext
    private let configuration: Configuration
    private let thread: ServiceThread<Never>
    private let logger: Logger

    /// `processor` is the serving thread's from `run()` on.
    package init(processor: sending CommandProcessor, context: ZMQContext, configuration: Configuration,
                logger: Logger = Logger(label: "pantry.core")) throws {
        self.processor = Handover(processor)
        self.context = context
        self.configuration = configuration
        self.logger = logger
        thread = try ServiceThread(name: "core")
    }

    /// Binds the sockets and serves on the core's thread until the group shuts down gracefully
    /// (SIGTERM or SIGINT in `pantry core`) or the context is shut down.
    package func run() async throws {
        try await thread.run { [self] thread in
            guard let processor = processor.take() else { preconditionFailure("a CoreServer runs once") }
            try Serving(processor: processor, context: context, configuration: configuration, counts: batchCounts,
                        logger: logger).run(thread)
        }
    }
}

/// What the core's thread owns: the processor and the two sockets.
private final class Serving {
    private let processor: CommandProcessor
    private let configuration: CoreServer.Configuration
    private let batchCounts: CoreServer.BatchCounts
    private let commands: ZMQSocket
    private let feed: ZMQSocket
    private let logger: Logger

    init(processor: CommandProcessor, context: ZMQContext, configuration: CoreServer.Configuration,
         counts: CoreServer.BatchCounts, logger: Logger) throws {
        self.processor = processor
        self.configuration = configuration
        batchCounts = counts
        self.logger = logger
        commands = try ZMQSocket(context: context, type: .router)
        try commands.setMaxMessageSize(configuration.maxMessageBytes)
        // Replies queue per client up to this; a client pipelining more than it reads would
        // otherwise lose answers. Mandatory routing turns a lost answer into an error we log.
        try commands.setSendHighWaterMark(configuration.replyHighWaterMark)
        try commands.setRouterMandatory(true)
        feed = try ZMQSocket(context: context, type: .pub)
        try feed.setSendHighWaterMark(configuration.publishHighWaterMark)
        // A SIGKILLed core leaves its ipc socket files behind; the writer lock proves nobody uses them.
        try commands.bindReplacingStaleFile(configuration.endpoints.commands)
        try feed.bindReplacingStaleFile(configuration.endpoints.events)
    }

    func run(_ thread: ServiceThread<Never>) throws {
        logger.info("core serving", metadata: [
            "commands": "\(configuration.endpoints.commands)", "events": "\(configuration.endpoints.events)",
            "head": "\(processor.head)",
        ])
        var poller = ZMQPoller()
        poller.register(commands)
        poller.register(fileDescriptor: thread.wakeDescriptor)
        let clock = ContinuousClock()
        var nextHeartbeat = clock.now
        var nextStorageCheck = clock.now
        do {
            while !thread.isStopping {
                if clock.now >= nextHeartbeat {
                    if clock.now >= nextStorageCheck {
                        processor.checkStorage()
                        nextStorageCheck = clock.now + configuration.storageCheckInterval
                    }
                    try feed.send(FeedMessage.heartbeatFrames(head: processor.head, storage: processor.storageProblem), dontWait: true)
                    nextHeartbeat = clock.now + configuration.heartbeatInterval
                    processor.takeDeletionSnapshotIfDue()
                }
                let wait = max(0, (nextHeartbeat - clock.now) / .milliseconds(1))
                let ready = try poller.poll(timeoutMilliseconds: Int(wait.rounded(.up)))
                if ready[1].contains(.readable) { _ = thread.takeMessages() }
                if ready[0].contains(.readable) { try serveWaitingCommands() }
            }
        } catch let error as ZMQError where error.isTerminated {}
        // The snapshot service, stopped after this one, waits for it to be on disk.
        processor.takeDeletionSnapshotIfDue(stopping: true)
        logger.info("core stopped", metadata: ["head": "\(processor.head)"])
    }

    /// One message from the command socket: one command, or the commands of a batch frame
    /// (`CommandBatch`), or a batch frame that could not be read, answered with `refusal` alone.
    private struct Request {
        var route: [Data]
        var bodies: [Data]
        var isBatch: Bool
        var refusal: CommandOutcome? = nil
    }

    private func serveWaitingCommands() throws {
        var requests: [Request] = []
        var waiting = 0
        while waiting < configuration.maxBatch, let frames = try commands.receive(dontWait: true) {
            // ROUTER prepends the peer's identity; REQ peers add an empty delimiter. Whatever
            // precedes the body is echoed back so the reply finds its way.
            guard frames.count >= 2 else { continue }
            let route = Array(frames.dropLast()), body = frames[frames.count - 1]
            guard CommandBatch.isBatch(body) else {
                requests.append(Request(route: route, bodies: [body], isBatch: false))
                waiting += 1
                continue
            }
            do {
                let bodies = try CommandBatch.split(body)
                guard (1...CommandBatch.maxCommands).contains(bodies.count) else {
                    requests.append(Request(route: route, bodies: [], isBatch: true, refusal: .rejected(nil, Rejection(
                        .invalidField, "a batch frame holds 1 to \(CommandBatch.maxCommands) commands, not \(bodies.count)"))))
                    continue
                }
                requests.append(Request(route: route, bodies: bodies, isBatch: true))
                waiting += bodies.count
            } catch {
                requests.append(Request(route: route, bodies: [], isBatch: true, refusal: .rejected(nil, Rejection(
                    .malformedJSON, "a batch frame must be one JSON array of command documents: \(error)"))))
            }
        }
        var batch = Batch()
        for body in requests.lazy.flatMap(\.bodies) {
            if body.isEmpty { batch.refuse(Rejection(.malformedJSON, "the command frame is empty")) } else { batch.read(body) }
        }
        processor.process(&batch)
        batchCounts.batches.add(1, ordering: .relaxed)
        batchCounts.commands.add(batch.count, ordering: .relaxed)

        var undelivered = 0
        // One outcome per slot, in the order the requests' bodies were read.
        var outcomes = batch.outcomes[...]
        for request in requests {
            let answered = outcomes.prefix(request.bodies.count).map(\.jsonDocument)
            outcomes = outcomes.dropFirst(request.bodies.count)
            let reply = request.refusal?.jsonDocument ?? (request.isBatch ? CommandBatch.join(answered) : answered.first ?? Data())
            do {
                if try !commands.send(request.route + [reply], dontWait: true) { undelivered += request.bodies.count }
            } catch let error as ZMQError where !error.isTerminated {
                undelivered += request.bodies.count // the client went away (EHOSTUNREACH); its commands still count
            }
        }
        if undelivered > 0 {
            logger.warning("answers could not be delivered; those clients must retry with the same command ids",
                           metadata: ["count": "\(undelivered)"])
        }
        let appended = batch.appended
        for message in FeedMessage.messages(for: appended) {
            try feed.send(message, dontWait: true)
        }
        if !appended.isEmpty {
            logger.trace("batch committed", metadata: ["commands": "\(batch.count)", "head": "\(processor.head)"])
        }
    }
}
