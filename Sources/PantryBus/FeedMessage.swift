import Foundation
import PantryDomain
import PantryEventStore

/// A message on the event feed (the core's PUB socket), as documented in `schemas/zeromq.md`:
/// three frames, `[topic, position, JSON]`. Events use their type as topic and the recorded-event
/// document as JSON; heartbeats use the topic `heartbeat` and carry the head position.
public enum FeedMessage: Sendable, Equatable {
    /// An event, with its payload decoded when the reader asked for its type. An event of a type
    /// the reader skips is not decoded at all: its `RecordedEvent` carries only position and type.
    case event(RecordedEvent, Event?)
    case heartbeat(head: Int64)

    public static let heartbeatTopic = "heartbeat"

    public enum DecodingError: Error, Equatable, CustomStringConvertible {
        case wrongFrameCount(Int)
        case badPosition(String)
        case badDocument(String)

        public var description: String {
            switch self {
            case .wrongFrameCount(let n): "a feed message has 3 frames, not \(n)"
            case .badPosition(let text): "the position frame is not a positive integer: \(text.prefix(40))"
            case .badDocument(let reason): "the event document is invalid: \(reason)"
            }
        }
    }

    public static func frames(for event: RecordedEvent) -> [Data] {
        [Data(event.type.utf8), Data(String(event.position).utf8), EventDocument.encode(event)]
    }

    public static func heartbeatFrames(head: Int64) -> [Data] {
        [Data(heartbeatTopic.utf8), Data(String(head).utf8), Data(#"{"head":\#(head)}"#.utf8)]
    }

    /// Decodes a message; events whose type `decoding` rejects (or at or below `after`, already
    /// seen) are returned undecoded, which is what keeps a worker cheap for the events it ignores.
    public static func decode(_ frames: [Data], decoder: JSONDecoder, after: Int64 = 0,
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
        let document: WireRecordedEvent
        do {
            document = try decoder.decode(WireRecordedEvent.self, from: frames[2])
        } catch {
            throw .badDocument("\(error)")
        }
        guard document.recorded.position == position else {
            throw .badDocument("position \(document.recorded.position) does not match the frame's \(position)")
        }
        return .event(document.recorded, document.event)
    }
}

/// The recorded-event document decoded in one pass, payload included. The payload bytes are
/// re-encoded with the writer's own encoder, which yields what the log holds.
private struct WireRecordedEvent: Decodable {
    var recorded: RecordedEvent
    var event: Event

    enum CodingKeys: String, CodingKey { case position, streamId, streamVersion, type, schemaVersion, data, metadata }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        let schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        guard schemaVersion == EventCoding.currentSchemaVersion else {
            throw EventCoding.Failure.unsupportedSchemaVersion(type: type, version: schemaVersion)
        }
        event = try EventCoding.decode(type: type, from: c, forKey: .data)
        recorded = RecordedEvent(
            position: try c.decode(Int64.self, forKey: .position),
            streamId: try c.decode(String.self, forKey: .streamId),
            streamVersion: try c.decode(Int64.self, forKey: .streamVersion),
            type: type, schemaVersion: schemaVersion, data: EventCoding.encode(event),
            metadata: try c.decode(EventMetadata.self, forKey: .metadata))
    }
}
