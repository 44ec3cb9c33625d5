import Logging

/// Lines written by swift-log's `StreamLogHandler`, with the logger's fields kept aside until a
/// line is written. `StreamLogHandler` formats its fields each time one is set, and Hummingbird
/// sets the request id on every request's logger: 4% of the API's CPU per command, for lines that
/// are rarely written.
struct DeferredMetadataLogHandler: LogHandler {
    private var lines: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(_ lines: StreamLogHandler) { self.lines = lines }

    var logLevel: Logger.Level {
        get { lines.logLevel }
        set { lines.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { lines.metadataProvider }
        set { lines.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        lines.log(event: event)
    }
}
