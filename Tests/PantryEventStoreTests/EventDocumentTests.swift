import Foundation
import PantryEventStore
import Testing
import PantryLog

@Suite struct EventDocumentTests {
    static let recorded = RecordedEvent(
        position: 42, streamId: "user-u1", streamVersion: 7, type: "ExperienceWritten", schemaVersion: 1,
        data: Data(#"{"text":"Crème \"brûlée\" 🍮\n","n":[1,2]}"#.utf8),
        metadata: EventMetadata(commandId: "cmd-1", correlationId: "corr-1", causationId: nil, userId: "u1", recordedAt: 1_700_000_000_123))

    @Test func documentIsJSONWithThePayloadAsAnObject() throws {
        let document = EventDocument.encode(Self.recorded)
        let json = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
        #expect(json["position"] as? Int == 42)
        #expect(json["streamId"] as? String == "user-u1")
        #expect(json["streamVersion"] as? Int == 7)
        #expect(json["type"] as? String == "ExperienceWritten")
        #expect(json["schemaVersion"] as? Int == 1)
        let data = try #require(json["data"] as? [String: Any])
        #expect(data["text"] as? String == "Crème \"brûlée\" 🍮\n")
        #expect(data["n"] as? [Int] == [1, 2])
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect(metadata["commandId"] as? String == "cmd-1")
        #expect(metadata["correlationId"] as? String == "corr-1")
        #expect(metadata["causationId"] == nil)
        #expect(metadata["userId"] as? String == "u1")
        #expect((metadata["recordedAt"] as? NSNumber)?.int64Value == 1_700_000_000_123)
        #expect(Set(json.keys) == ["position", "streamId", "streamVersion", "type", "schemaVersion", "metadata", "data"])
    }

    @Test func documentsOfStoredEventsParse() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
            _ = try store.append([append("s1", expecting: 0, event("A", #"{"a":"\u0000 \\ \""}"#), event("B", "{}"))])
            for recorded in try store.read(after: 0, limit: 10) {
                let json = try #require(try JSONSerialization.jsonObject(with: EventDocument.encode(recorded)) as? [String: Any])
                #expect(json["data"] is [String: Any])
                #expect(json["position"] as? Int == Int(recorded.position))
            }
        }
    }
}
