import Foundation
import PantryEventStore
import Testing
import PantryLog

/// A fresh directory for one test, removed when the test is done.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-store-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

func event(_ type: String = "PointEarned", _ payload: String = #"{"n":1}"#, commandId: String = "c1",
           correlationId: String? = nil, causationId: String? = nil, userId: String = "u1", recordedAt: Int64 = 1_700_000_000_000) -> NewEvent {
    NewEvent(type: type, schemaVersion: 1, data: Data(payload.utf8),
             metadata: EventMetadata(commandId: commandId, correlationId: correlationId, causationId: causationId,
                                     userId: userId, recordedAt: recordedAt))
}

func append(_ stream: String, expecting version: Int64, _ events: NewEvent...) -> StreamAppend {
    StreamAppend(streamId: stream, expectedVersion: version, events: events)
}
