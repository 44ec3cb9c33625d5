import ArgumentParser
import Foundation
import Logging

@main
struct Pantry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pantry: the event-sourced backend for recipe apps.",
        version: Pantry.version,
        subcommands: [Core.self, Worker.self, Fetch.self, API.self, Submit.self, Events.self, Stats.self, Status.self, Replay.self, Backup.self, Restore.self, MigrateLog.self,
                      Catalog.self, LoadTest.self]
    )
}

extension Pantry {
    /// The release, written into load-test results so that runs compared later say what ran.
    static let version = "0.12.0"
}

/// Options every subcommand that touches a deployment shares.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory (event log, projections, caches).")
    var data: String = "./data"

    @Option(name: .long, help: "The event log: postgres://USER@HOST:PORT/DATABASE, or left out for the SQLite file in the data directory (or PANTRY_LOG).")
    var log: String?
}

/// Logs go to stderr so that stdout stays machine-readable; `PANTRY_LOG_LEVEL` sets the level.
func bootstrapLogging() {
    let level = ProcessInfo.processInfo.environment["PANTRY_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
    LoggingSystem.bootstrap { label in
        var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
        handler.logLevel = level
        return handler
    }
}

/// One JSON document per line on stdout.
func printJSONLine(_ value: some Encodable, encoder: JSONEncoder) {
    // The values printed are plain structs of strings and numbers; encoding cannot fail.
    var line = try! encoder.encode(value)
    line.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(line)
}

extension JSONEncoder {
    static var lines: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
