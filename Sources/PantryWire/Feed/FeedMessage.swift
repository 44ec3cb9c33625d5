import Foundation
import PantryDomain
import PantryLog
import PantryJSON

/// A message on the event feed (the core's PUB socket), as documented in `schemas/zeromq.md`:
/// three frames, `[topic, position, JSON]`. Events use their type as topic and the recorded-event
/// document as JSON; heartbeats use the topic `heartbeat` and carry the head position.
package enum FeedMessage: Sendable, Equatable {
    /// An event, with its payload decoded when the reader asked for its type. An event of a type
    /// the reader skips is not decoded at all: its `RecordedEvent` carries only position and type.
    case event(RecordedEvent, Event?)
    case heartbeat(head: Int64)

    package static let heartbeatTopic = "heartbeat"

    package enum DecodingError: Error, Equatable, CustomStringConvertible {
        case wrongFrameCount(Int)
        case badPosition(String)
        case badDocument(String)

        package var description: String {
            switch self {
            case .wrongFrameCount(let n): "a feed message has 3 frames, not \(n)"
            case .badPosition(let text): "the position frame is not a positive integer: \(text.prefix(40))"
            case .badDocument(let reason): "the event document is invalid: \(reason)"
            }
        }
    }

    package static func frames(for event: RecordedEvent) -> [Data] {
        [Data(event.type.utf8), Data(String(event.position).utf8), EventDocument.encode(event)]
    }

    package static func heartbeatFrames(head: Int64) -> [Data] {
        [Data(heartbeatTopic.utf8), Data(String(head).utf8), Data(#"{"head":\#(head)}"#.utf8)]
    }

    /// Decodes a message; events whose type `decoding` rejects (or at or below `after`, already
    /// seen) are returned undecoded, which is what keeps a worker cheap for the events it ignores.
    package static func decode(_ frames: [Data], after: Int64 = 0,
                              decoding: (String) -> Bool = { _ in true }) throws(DecodingError) -> FeedMessage {
        guard frames.count == 3 else { throw .wrongFrameCount(frames.count) }
        let positionText = String(decoding: frames[1], as: UTF8.self)
        guard let position = Int64(positionText), position >= 0 else { throw .badPosition(positionText) }
        let topic = String(decoding: frames[0], as: UTF8.self)
        if topic == heartbeatTopic { return .heartbeat(head: position) }
        if position <= after || !decoding(topic) {
            return .event(RecordedEvent(
                position: position, streamId: "", streamVersion: 0, type: topic, schemaVersion: 0, data: Data(),
                metadata: EventMetadata(commandId: "", correlationId: nil, causationId: nil, userId: "", recordedAt: 0)), nil)
        }
        let decoded: (recorded: RecordedEvent, event: Event?)
        do {
            decoded = try frames[2].withUnsafeBytes { bytes in try JSONObjectReader.read(bytes) { try readDocument($0) } }
        } catch {
            throw .badDocument("\(error)")
        }
        guard decoded.recorded.position == position else {
            throw .badDocument("position \(decoded.recorded.position) does not match the frame's \(position)")
        }
        return .event(decoded.recorded, decoded.event)
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
