import Foundation

/// The JSON document of a recorded event, as `pantry events` prints it and the core publishes it
/// (`schemas/recorded-event.schema.json`). The stored payload is already JSON, so it is spliced in
/// as it is rather than parsed and encoded again.
public enum EventDocument {
    private struct Header: Encodable {
        var position: Int64
        var streamId: String
        var streamVersion: Int64
        var type: String
        var schemaVersion: Int
        var metadata: EventMetadata
    }

    public static func encode(_ event: RecordedEvent, with encoder: JSONEncoder) -> Data {
        let header = Header(position: event.position, streamId: event.streamId, streamVersion: event.streamVersion,
                            type: event.type, schemaVersion: event.schemaVersion, metadata: event.metadata)
        // Strings and integers only: encoding cannot fail, and the document ends in "}".
        var document = try! encoder.encode(header)
        document.removeLast()
        document.append(contentsOf: #","data":"#.utf8)
        document.append(event.data)
        document.append(UInt8(ascii: "}"))
        return document
    }
}
