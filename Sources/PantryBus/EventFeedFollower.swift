import Foundation
import Logging
import PantryDomain
import PantryEventStore
import ZeroMQ

/// Follows the event feed and hands back events in log order, each exactly once, starting after a
/// checkpoint. ZeroMQ is the fast path; the log is the truth: at start, on a gap in positions and
/// on a heartbeat ahead of what was seen, the missing events are read from the log.
public final class EventFeedFollower {
    public let socket: ZMQSocket
    private let log: any EventStore
    private let logger: Logger
    /// The position of the last event handed back.
    public private(set) var position: Int64
    /// The newest head the core announced.
    public private(set) var announcedHead: Int64 = 0
    public private(set) var eventsReadFromLog = 0
    public private(set) var gapsHealed = 0

    /// Event types whose payloads the consumer reads; the others are handed back undecoded.
    private let decodedTypes: Set<String>?

    /// An event handed back: its payload is decoded when it came off the feed and is of a type the
    /// consumer reads; nil when it came from the log or is of a type the consumer skips.
    public typealias Delivery = (recorded: RecordedEvent, event: Event?)

    public init(context: ZMQContext, endpoint: String, log: any EventStore, after checkpoint: Int64,
                decodedTypes: Set<String>? = nil, logger: Logger) throws {
        self.decodedTypes = decodedTypes
        socket = try ZMQSocket(context: context, type: .sub)
        try socket.setReceiveHighWaterMark(BusEndpoints.feedHighWaterMark())
        try socket.subscribe("")
        try socket.connect(endpoint)
        self.log = log
        self.logger = logger
        position = checkpoint
    }

    /// Everything in the log after the current position (the start, or a late worker).
    public func readLog(limit: Int = 10_000) throws -> [Delivery] {
        let events = try log.read(after: position, limit: limit)
        for event in events {
            guard event.position == position + 1 else {
                throw EventStoreError.corrupt("position \(position + 1) is missing from the log")
            }
            position = event.position
        }
        eventsReadFromLog += events.count
        return events.map { ($0, nil) }
    }

    /// Starts over after `position` (when the consumer could not apply what it was handed).
    public func rewind(to position: Int64) {
        self.position = position
    }

    /// Whether the core has announced events this follower has not handed back yet.
    public var isBehind: Bool { announcedHead > position }

    /// Takes every message waiting on the feed without blocking and returns the next events in
    /// order, filling any gap from the log. Malformed messages are logged and skipped: the next
    /// heartbeat or event reveals what they carried, and the log supplies it.
    public func drain(limit: Int = 10_000) throws -> [Delivery] {
        var events: [Delivery] = []
        while events.count < limit, let frames = try socket.receive(dontWait: true) {
            let message: FeedMessage
            do {
                message = try FeedMessage.decode(frames, after: position) { type in
                    self.decodedTypes?.contains(type) ?? true
                }
            } catch {
                logger.warning("skipped a malformed feed message", metadata: ["error": "\(error)"])
                continue
            }
            switch message {
            case .heartbeat(let head):
                announcedHead = max(announcedHead, head)
            case .event(let recorded, let event):
                announcedHead = max(announcedHead, recorded.position)
                if recorded.position <= position { continue }
                if recorded.position > position + 1 {
                    gapsHealed += 1
                    logger.debug("gap on the feed; reading the log", metadata: [
                        "expected": "\(position + 1)", "got": "\(recorded.position)",
                    ])
                    while position + 1 < recorded.position {
                        let missing = try readLog(limit: Int(min(recorded.position - position - 1, 10_000)))
                        if missing.isEmpty { break }
                        events += missing
                    }
                }
                if recorded.position == position + 1 {
                    events.append((recorded, event))
                    position = recorded.position
                }
            }
        }
        if events.isEmpty && isBehind {
            events = try readLog(limit: limit)
        }
        return events
    }
}
