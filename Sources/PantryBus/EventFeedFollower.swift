import Foundation
import Logging
import PantryDomain
import PantryLog
import ZeroMQ
import PantryWire

/// Follows the event feed and hands back events in log order, each exactly once, starting after a
/// checkpoint. ZeroMQ is the fast path; the log (over the network, `RemoteEventStore`) is the truth: at start, on a gap in positions and
/// on a heartbeat ahead of what was seen, the missing events are read from the log.
///
/// A follower given `types` subscribes to those topics (and the heartbeat) only, so the core's
/// socket never sends it the rest. Positions then jump over the events of other types, and a
/// jump can no longer tell them from lost messages: every jump is read from the log, filtered by
/// `types`, which returns exactly what was lost (usually nothing). A follower without `types`
/// receives every event, and every jump is a loss.
package final class EventFeedFollower {
    package let socket: ZMQSocket
    private let log: any EventLogReader
    private let logger: Logger
    /// The position up to which everything the consumer reads has been handed back.
    package private(set) var position: Int64
    /// The newest head the core announced.
    package private(set) var announcedHead: Int64 = 0
    /// Why the core's writes fail, as its last heartbeat said; nil while they work.
    package private(set) var coreStorage: String?
    package private(set) var eventsReadFromLog = 0
    /// Events that were lost on the feed (a slow consumer, a full buffer) and read from the log.
    package private(set) var gapsHealed = 0

    /// The event types the consumer reads, as topics name them; nil for all.
    private var types: Set<String>?

    /// An event handed back: its payload is decoded when it came off the feed; nil when it came
    /// from the log.
    package typealias Delivery = (recorded: RecordedEvent, event: Event?)

    package init(context: ZMQContext, endpoint: String, log: any EventLogReader, after checkpoint: Int64,
                types: Set<EventType>? = nil, highWaterMark: Int = BusEndpoints.defaultFeedHighWaterMark, logger: Logger) throws {
        self.types = types?.names
        socket = try ZMQSocket(context: context, type: .sub)
        try socket.setReceiveHighWaterMark(highWaterMark)
        if let types = self.types {
            for topic in types.union([FeedMessage.heartbeatTopic]) { try socket.subscribe(topic) }
        } else {
            try socket.subscribe("")
        }
        try socket.connect(endpoint)
        self.log = log
        self.logger = logger
        position = checkpoint
    }

    /// Reads `more` types too from the current position on (those before it are not handed back):
    /// for a consumer that needs them only from now, such as the API's live streams once the
    /// accounts are loaded, so the start does not read their whole history.
    package func include(_ more: Set<EventType>) throws {
        guard let current = types else { return }
        for topic in more.names.subtracting(current) { try socket.subscribe(topic) }
        types = current.union(more.names)
    }

    /// The next `limit` positions of the log (fewer at its head), for the start or a late
    /// consumer: the events among them of the consumer's types. An empty answer does not mean the
    /// log is read to its end; compare `position` with the log's head.
    package func readLog(limit: Int = 10_000) throws -> [Delivery] {
        try readLog(through: position + Int64(limit))
    }

    /// The events of the consumer's types up to `last` or the log's head, whichever comes first.
    private func readLog(through last: Int64) throws -> [Delivery] {
        let events = try logEvents(through: min(last, try log.headPosition()))
        eventsReadFromLog += events.count
        return events.map { ($0, nil) }
    }

    /// The events of the consumer's types after `position` up to `last`, which becomes the position.
    private func logEvents(through last: Int64) throws -> [RecordedEvent] {
        guard last > position else { return [] }
        let events: [RecordedEvent]
        if let types {
            events = try log.read(after: position, through: last, types: types)
        } else {
            events = try log.read(after: position, limit: Int(last - position))
            guard events.count == Int(last - position), events.last?.position == last else {
                throw EventStoreError.corrupt("positions \(position + 1)...\(last) are not all in the log")
            }
        }
        position = last
        return events
    }

    /// Starts over after `position` (when the consumer could not apply what it was handed).
    package func rewind(to position: Int64) {
        self.position = position
    }

    /// A head learnt elsewhere (read from the log): the next `drain` reads up to it from the log
    /// rather than wait for the heartbeat that would announce it.
    package func learnHead(_ head: Int64) {
        announcedHead = max(announcedHead, head)
    }

    /// Whether the core has announced events this follower has not handed back yet.
    package var isBehind: Bool { announcedHead > position }

    /// Takes every message waiting on the feed without blocking and returns the next events in
    /// order, filling any gap from the log. Malformed messages are logged and skipped: the next
    /// heartbeat or event reveals what they carried, and the log supplies it.
    package func drain(limit: Int = 10_000) throws -> [Delivery] {
        var received: [Delivery] = []
        var jumped = false
        while received.count < limit, let frames = try socket.receive(dontWait: true) {
            let message: FeedMessage
            do {
                message = try FeedMessage.decode(frames, after: position) { type in self.types?.contains(type) ?? true }
            } catch {
                logger.warning("skipped a malformed feed message", metadata: ["error": "\(error)"])
                continue
            }
            switch message {
            case .heartbeat(let head, let storage):
                announcedHead = max(announcedHead, head)
                coreStorage = storage
            case .events(let recordedEvents, let events):
                for (recorded, event) in zip(recordedEvents, events) {
                    announcedHead = max(announcedHead, recorded.position)
                    let last = received.last?.recorded.position ?? position
                    // Topics are prefixes: a type whose name extends one of ours comes through too. A
                    // payload with sealed fields is left out, like a lost message, and read from the
                    // log, whose service opens it: no consumer holds the key vault.
                    guard recorded.position > last, types?.contains(recorded.type) ?? true,
                          !EventCoding.sealedTypes.contains(recorded.type) else { continue }
                    jumped = jumped || recorded.position > last + 1
                    received.append((recorded, event))
                }
            }
        }
        if jumped { return try fillFromLog(received) }
        if let last = received.last {
            position = last.recorded.position
            return received
        }
        guard isBehind else { return [] }
        // Only up to the announced head: the core announces a head after it has sent the events up
        // to it, so what the log holds beyond it is still on its way over the feed (a later batch).
        // Read from the log, they cost a read the feed was about to save, and their messages were
        // then skipped as already seen.
        let fromLog = try readLog(through: min(position + Int64(limit), announcedHead))
        if !fromLog.isEmpty {
            logger.debug("read events from the log: the announced head is ahead of the feed",
                         metadata: ["events": "\(fromLog.count)", "through": "\(position)", "head": "\(announcedHead)"])
        }
        return fromLog
    }

    /// `received` skips positions. One read of the log over its whole range (not one per jump)
    /// tells what lies in between: events of other types, or messages lost on the feed, which are
    /// handed back in their place. Events that came over the wire keep their decoded payloads.
    private func fillFromLog(_ received: [Delivery]) throws -> [Delivery] {
        let wire = Dictionary(uniqueKeysWithValues: received.map { ($0.recorded.position, $0) })
        let logged = try logEvents(through: received[received.count - 1].recorded.position)
        let lost = logged.count { wire[$0.position] == nil && !EventCoding.sealedTypes.contains($0.type) }
        if lost > 0 {
            gapsHealed += 1
            eventsReadFromLog += lost
            logger.debug("messages lost on the feed; read them from the log", metadata: ["events": "\(lost)", "through": "\(position)"])
        }
        return logged.map { wire[$0.position] ?? ($0, nil) }
    }
}
