import Foundation
import PantryLog

/// An event about to be appended; the store gives it its position and stream version.
public struct NewEvent: Sendable, Equatable {
    public var type: String
    public var schemaVersion: Int
    /// The JSON payload.
    public var data: Data
    public var metadata: EventMetadata

    public init(type: String, schemaVersion: Int, data: Data, metadata: EventMetadata) {
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.metadata = metadata
    }
}

/// The events of one command for one stream, appended only if the stream is at `expectedVersion`
/// (0 for a stream that does not exist yet).
public struct StreamAppend: Sendable, Equatable {
    public var streamId: String
    public var expectedVersion: Int64
    public var events: [NewEvent]

    public init(streamId: String, expectedVersion: Int64, events: [NewEvent]) {
        self.streamId = streamId
        self.expectedVersion = expectedVersion
        self.events = events
    }

    /// Whether this append may go on a stream at `version`, checked the same by every store.
    public func check(streamAt version: Int64) throws {
        guard !events.isEmpty else { throw EventStoreError.emptyAppend(streamId: streamId) }
        guard version == expectedVersion else {
            throw EventStoreError.wrongExpectedVersion(streamId: streamId, expected: expectedVersion, actual: version)
        }
    }
}

/// A command the log holds: where its events are, and its fingerprint (nil for commands logged
/// before fingerprints were kept: those ids answer any retry, as they always did).
public struct AcceptedCommand: Sendable, Equatable {
    public var positions: ClosedRange<Int64>
    public var fingerprint: UInt64?

    public init(positions: ClosedRange<Int64>, fingerprint: UInt64?) {
        self.positions = positions
        self.fingerprint = fingerprint
    }
}
