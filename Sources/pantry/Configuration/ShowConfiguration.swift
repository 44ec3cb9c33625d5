import ArgumentParser
import Foundation
import PantryAPI
import PantryFetch

/// `pantry config`: the configuration every process would run with here, key by key.
struct ShowConfiguration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the effective configuration: every key, its value and where it came from.",
        discussion: """
            A key comes from a flag, else its PANTRY_* environment variable (PANTRY_ and the key in
            capitals, - as _), else the JSON file named by --config or PANTRY_CONFIG (an object of
            keys), else its default. Secrets (token-key, spoonacular-key, the password of a
            postgres:// log) are masked. A value that cannot be used exits 64, naming its key.
            """)

    @OptionGroup var options: DataOptions

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    struct Report: Encodable {
        var file: String?
        var settings: [ConfigurationSources.Setting]
    }

    func run() throws {
        let config = try options.configuration()
        // Every section, as each process reads it; nothing is opened or created.
        let deployment = try config.deployment()
        let data = URL(fileURLWithPath: deployment.data, isDirectory: true).standardizedFileURL
        let endpoints = try config.endpoints(data).bus
        _ = try config.core()
        _ = try config.workerSnapshotInterval()
        var api = APIServer.Configuration(dataDirectory: data, endpoints: endpoints, log: .service)
        try config.api(&api)
        _ = try config.mail(host: api.host, port: api.port)
        var fetch = FetchConfiguration(databasePath: data.appendingPathComponent("fetch.sqlite").path)
        try config.fetch(&fetch)

        if json { return printJSONLine(Report(file: config.file, settings: config.settings), encoder: .lines) }
        let keyWidth = config.settings.map(\.key.count).max() ?? 0
        let valueWidth = min(config.settings.map(\.value.count).max() ?? 0, 60)
        print("key".padding(toLength: keyWidth, withPad: " ", startingAt: 0) + "  "
              + "value".padding(toLength: valueWidth, withPad: " ", startingAt: 0) + "  from")
        for setting in config.settings {
            let origin = setting.source.map { "\(setting.origin.rawValue) \($0)" } ?? setting.origin.rawValue
            print(setting.key.padding(toLength: keyWidth, withPad: " ", startingAt: 0) + "  "
                  + setting.value.padding(toLength: max(valueWidth, setting.value.count), withPad: " ", startingAt: 0) + "  " + origin)
        }
    }
}
