import ArgumentParser
import Foundation
import Logging

@main
struct Pantry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pantry: the event-sourced backend for recipe apps.",
        version: Pantry.version,
        subcommands: [Core.self, Worker.self, Fetch.self, API.self, Submit.self, Events.self, Stats.self, Status.self, Replay.self, Backup.self, Restore.self, MigrateLog.self,
                      Catalog.self, LoadTest.self, Keys.self, ShowConfiguration.self]
    )
}

extension Pantry {
    /// The release, written into load-test results so that runs compared later say what ran.
    static let version = "0.12.0"

    /// Exit statuses: 64 for a usage error (a bad flag, with the usage; a configuration value that
    /// cannot be used, naming its key, without it), 1 for a failure while running, printed as
    /// `pantry COMMAND: MESSAGE` (swift-argument-parser alone prints the usage after any
    /// `ValidationError`, and its runtime failures are not usage errors); a command may exit
    /// with its own status (`ExitCode`).
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(nil)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ConfigurationError {
            fail(command, error.description, status: 64)
        } catch let error as ValidationError {
            fail(command, error.message, status: 1)
        } catch where error is ExitCode || error is CleanExit || exitCode(for: error) == .success {
            // `pantry --help` and `pantry X --help` parse as ArgumentParser's help command, whose
            // run throws the help request: it prints the usage and exits 0.
            exit(withError: error)
        } catch {
            fail(command, "\(error)", status: 1)
        }
    }

    private static func fail(_ command: any ParsableCommand, _ message: String, status: Int32) -> Never {
        let name = (commandPath(to: type(of: command)) ?? [type(of: command)._commandName]).joined(separator: " ")
        FileHandle.standardError.write(Data("pantry \(name): \(message)\n".utf8))
        Foundation.exit(status)
    }

    /// `["catalog", "import"]` for `Catalog.Import`.
    private static func commandPath(to target: any ParsableCommand.Type, from root: any ParsableCommand.Type = Pantry.self) -> [String]? {
        for sub in root.configuration.subcommands {
            if ObjectIdentifier(sub) == ObjectIdentifier(target) { return [sub._commandName] }
            if let path = commandPath(to: target, from: sub) { return [sub._commandName] + path }
        }
        return nil
    }
}

/// Options every subcommand that touches a deployment shares. Each is a configuration key
/// (`ConfigurationSources`): left out, it comes from `PANTRY_*` or the configuration file.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory (event log, projections, caches); default PANTRY_DATA or ./data.")
    var data: String?

    @Option(name: .long, help: "The event log: postgres://USER@HOST:PORT/DATABASE, or left out for the SQLite file in the data directory (or PANTRY_LOG).")
    var log: String?

    @Option(name: .long, help: "A JSON file of configuration keys (pantry config lists them); or PANTRY_CONFIG.")
    var config: String?

    @Option(name: .long, help: "The keys directory `pantry keys` wrote (this host's .secret, every host's .public); default PANTRY_KEYS or DATA/keys.")
    var keys: String?

    @Flag(name: .long, help: "Let tcp:// endpoints run without CURVE keys, readable and writable by anyone on the network; or PANTRY_INSECURE_NETWORK=true.")
    var insecureNetwork = false

    /// The configuration of this run: these options and `flags` (the command's own keys), then
    /// the environment, then the file.
    func configuration(_ flags: [String: (any ConfigurationFlagValue)?] = [:]) throws -> ConfigurationSources {
        try ConfigurationSources(flags: flags.merging(["data": data, "log": log, "config": config, "keys": keys,
                                                       "insecure-network": insecureNetwork ? true : nil]) { own, _ in own })
    }
}

/// Logs go to stderr so that stdout stays machine-readable, at the `log-level` key's level.
func bootstrapLogging(_ level: Logger.Level) {
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
