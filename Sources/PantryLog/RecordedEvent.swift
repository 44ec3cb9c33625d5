import Foundation

/// Who and what caused an event; stored beside it in the log.
package struct EventMetadata: Sendable, Equatable, Codable {
    package var commandId: String
    package var correlationId: String?
    package var causationId: String?
    package var userId: String
    /// Milliseconds since 1970 (UTC) when the writer appended the event.
    package var recordedAt: Int64
    /// What the command asked for, hashed (`CommandCoding.fingerprint`): a command id sent again
    /// with another command is refused. Kept in the log only, not published; nil in logs written
    /// before it existed.
    package var commandFingerprint: UInt64?

    package init(commandId: String, correlationId: String?, causationId: String?, userId: String, recordedAt: Int64,
                commandFingerprint: UInt64? = nil) {
        self.commandId = commandId
        self.correlationId = correlationId
        self.causationId = causationId
        self.userId = userId
        self.recordedAt = recordedAt
        self.commandFingerprint = commandFingerprint
    }
}

/// An event as it stands in the log.
package struct RecordedEvent: Sendable, Equatable {
    /// Global, dense, strictly increasing from 1.
    package var position: Int64
    package var streamId: String
    /// Dense within the stream, from 1.
    package var streamVersion: Int64
    package var type: String
    package var schemaVersion: Int
    package var data: Data
    package var metadata: EventMetadata

    package init(position: Int64, streamId: String, streamVersion: Int64, type: String, schemaVersion: Int, data: Data, metadata: EventMetadata) {
        self.position = position
        self.streamId = streamId
        self.streamVersion = streamVersion
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.metadata = metadata
    }
}
