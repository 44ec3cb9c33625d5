import Foundation
import PantryLog

/// An event about to be appended; the store gives it its position and stream version.
package struct NewEvent: Sendable, Equatable {
    package var type: String
    package var schemaVersion: Int
    /// The JSON payload.
    package var data: Data
    package var metadata: EventMetadata

    package init(type: String, schemaVersion: Int, data: Data, metadata: EventMetadata) {
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.metadata = metadata
    }
}

/// The events of one command for one stream, appended only if the stream is at `expectedVersion`
/// (0 for a stream that does not exist yet).
package struct StreamAppend: Sendable, Equatable {
    package var streamId: String
    package var expectedVersion: Int64
    package var events: [NewEvent]

    package init(streamId: String, expectedVersion: Int64, events: [NewEvent]) {
        self.streamId = streamId
        self.expectedVersion = expectedVersion
        self.events = events
    }

    /// Whether this append may go on a stream at `version`, checked the same by every store.
    package func check(streamAt version: Int64) throws {
        guard !events.isEmpty else { throw EventStoreError.emptyAppend(streamId: streamId) }
        guard version == expectedVersion else {
            throw EventStoreError.wrongExpectedVersion(streamId: streamId, expected: expectedVersion, actual: version)
        }
    }
}

/// A command the log holds: where its events are, and its fingerprint (nil for commands logged
/// before fingerprints were kept: those ids answer any retry, as they always did).
package struct AcceptedCommand: Sendable, Equatable {
    package var positions: ClosedRange<Int64>
    package var fingerprint: UInt64?

    package init(positions: ClosedRange<Int64>, fingerprint: UInt64?) {
        self.positions = positions
        self.fingerprint = fingerprint
    }
}
