import Foundation
import PantryJSON

/// The JSON document of a recorded event, as `pantry events` prints it and the core publishes it
/// (`schemas/recorded-event.schema.json`). The stored payload is already JSON, so it is spliced in
/// as it is rather than parsed and encoded again.
package enum EventDocument {
    package static func encode(_ event: RecordedEvent) -> Data {
        let m = event.metadata
        var metadata = JSONObjectWriter()
        metadata.field("commandId", m.commandId)
        metadata.field("correlationId", m.correlationId)
        metadata.field("causationId", m.causationId)
        metadata.field("userId", m.userId)
        metadata.field("recordedAt", m.recordedAt)
        var document = JSONObjectWriter()
        document.field("position", event.position)
        document.field("streamId", event.streamId)
        document.field("streamVersion", event.streamVersion)
        document.field("type", event.type)
        document.field("schemaVersion", event.schemaVersion)
        document.field("metadata", json: metadata.finish())
        document.field("data", json: event.data)
        return Data(document.finish())
    }
}
