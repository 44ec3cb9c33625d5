import Foundation
import PantryDomain
import PantryLog
import PantryJSON

/// A message on the event feed (the core's PUB socket), as documented in `schemas/zeromq.md`:
/// `[topic, position, JSON...]`. An event message carries the events of one type at consecutive log
/// positions (one or more, up to `maxEventsPerMessage`), its topic their type, its position the
/// last one's, then one recorded-event document each; heartbeats use the topic `heartbeat` and
/// carry the head position. The core sends each run of one type in a committed batch as one
/// message, so a burst of points costs one send (and one receive per subscriber), not one an event.
package enum FeedMessage: Sendable, Equatable {
    /// Events in position order, each with its payload decoded when the reader asked for its type.
    /// An event of a type the reader skips is not decoded at all: its `RecordedEvent` carries only
    /// position and type.
    case events([RecordedEvent], [Event?])
    /// `storage`: why the core's writes fail now (a full disk, the log's server away), while they do.
    case heartbeat(head: Int64, storage: String?)

    package static let heartbeatTopic = "heartbeat"

    /// The most events in one message: the core's send queue to a subscriber is bounded in
    /// messages, and this keeps a full message near 16 KB (events are about 0.5 KB).
    package static let maxEventsPerMessage = 32

    package enum DecodingError: Error, Equatable, CustomStringConvertible {
        case wrongFrameCount(Int)
        case badPosition(String)
        case badDocument(String)

        package var description: String {
            switch self {
            case .wrongFrameCount(let n): "a feed message has a topic, a position and 1 to \(maxEventsPerMessage) documents, not \(n) frames"
            case .badPosition(let text): "the position frame is not a positive integer: \(text.prefix(40))"
            case .badDocument(let reason): "the event document is invalid: \(reason)"
            }
        }
    }

    /// One message for `events`: of one type, at consecutive positions, at most `maxEventsPerMessage`.
    package static func frames(for events: some Collection<RecordedEvent>) -> [Data] {
        guard let first = events.first else { return [] }
        let last = first.position + Int64(events.count) - 1
        return [Data(first.type.utf8), Data(String(last).utf8)] + events.map(EventDocument.encode)
    }

    /// The messages for events appended together, in position order: each run of one type, cut
    /// at `maxEventsPerMessage`.
    package static func messages(for events: [RecordedEvent]) -> [[Data]] {
        var messages: [[Data]] = []
        var start = 0
        while start < events.count {
            var end = start + 1
            while end < events.count, end - start < maxEventsPerMessage, events[end].type == events[start].type,
                  events[end].position == events[end - 1].position + 1 { end += 1 }
            messages.append(frames(for: events[start..<end]))
            start = end
        }
        return messages
    }

    package static func heartbeatFrames(head: Int64, storage: String? = nil) -> [Data] {
        var body = JSONObjectWriter()
        body.field("head", head)
        body.field("storage", storage)
        return [Data(heartbeatTopic.utf8), Data(String(head).utf8), Data(body.finish())]
    }

    /// Decodes a message; events whose type `decoding` rejects (or at or below `after`, already
    /// seen) are returned undecoded, which is what keeps a worker cheap for the events it ignores.
    package static func decode(_ frames: [Data], after: Int64 = 0,
                              decoding: (String) -> Bool = { _ in true }) throws(DecodingError) -> FeedMessage {
        guard frames.count >= 3 else { throw .wrongFrameCount(frames.count) }
        let positionText = String(decoding: frames[1], as: UTF8.self)
        guard let last = Int64(positionText), last >= 0 else { throw .badPosition(positionText) }
        let topic = String(decoding: frames[0], as: UTF8.self)
        if topic == heartbeatTopic {
            guard frames.count == 3 else { throw .wrongFrameCount(frames.count) }
            // Only a storage problem is read from the body; the position is frame 2's.
            let storage = (try? frames[2].withUnsafeBytes { bytes in
                try JSONObjectReader.read(bytes) { try $0.optionalString("storage") }
            }) ?? nil
            return .heartbeat(head: last, storage: storage)
        }
        let count = frames.count - 2
        guard count <= maxEventsPerMessage else { throw .wrongFrameCount(frames.count) }
        guard last >= Int64(count) else { throw .badPosition(positionText) }
        var recorded: [RecordedEvent] = []
        var events: [Event?] = []
        recorded.reserveCapacity(count)
        events.reserveCapacity(count)
        let wanted = decoding(topic)
        for (offset, document) in frames[2...].enumerated() {
            let position = last - Int64(count) + 1 + Int64(offset)
            if position <= after || !wanted {
                recorded.append(RecordedEvent(
                    position: position, streamId: "", streamVersion: 0, type: topic, schemaVersion: 0, data: Data(),
                    metadata: EventMetadata(commandId: "", correlationId: nil, causationId: nil, userId: "", recordedAt: 0)))
                events.append(nil)
                continue
            }
            let decoded: (recorded: RecordedEvent, event: Event?)
            do {
                decoded = try document.withUnsafeBytes { bytes in try JSONObjectReader.read(bytes) { try readDocument($0) } }
            } catch {
                throw .badDocument("\(error)")
            }
            guard decoded.recorded.position == position, decoded.recorded.type == topic else {
                throw .badDocument("\(decoded.recorded.type) at \(decoded.recorded.position) is not the message's \(topic) at \(position)")
            }
            recorded.append(decoded.recorded)
            events.append(decoded.event)
        }
        return .events(recorded, events)
    }

    /// An event document as the log service sends it, its payload left undecoded for the consumer.
    package static func recordedEvent(document: Data) throws -> RecordedEvent {
        try document.withUnsafeBytes { bytes in try JSONObjectReader.read(bytes) { try readDocument($0, decoding: false) } }.recorded
    }

    /// The recorded-event document (`EventDocument`), payload included. The payload's bytes are
    /// kept as they came, which is what the log holds.
    /// Payloads with sealed personal fields are left for the reader: the follower reads them from the log service, which opens them.
    private static func readDocument(_ json: borrowing JSONObjectReader, decoding: Bool = true) throws -> (recorded: RecordedEvent, event: Event?) {
        let type = try json.string("type")
        let schemaVersion = try json.int("schemaVersion")
        let known = try EventCoding.checkVersion(type: type, schemaVersion)
        let payload = try json.object("data")
        let event = !decoding || known.isSealed ? nil : try JSONObjectReader.read(payload) {
            try EventCoding.decode(type: known, schemaVersion: schemaVersion, $0, vault: nil)
        }
        let metadata = try JSONObjectReader.read(try json.object("metadata")) { m in
            EventMetadata(commandId: try m.string("commandId"), correlationId: try m.optionalString("correlationId"),
                          causationId: try m.optionalString("causationId"), userId: try m.string("userId"),
                          recordedAt: try m.int64("recordedAt"))
        }
        let recorded = RecordedEvent(
            position: try json.int64("position"), streamId: try json.string("streamId"),
            streamVersion: try json.int64("streamVersion"), type: type, schemaVersion: schemaVersion,
            data: Data(payload), metadata: metadata)
        return (recorded, event)
    }
}
