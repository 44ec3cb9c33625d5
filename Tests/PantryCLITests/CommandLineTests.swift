import Foundation
import PantryTestSupport
import Testing

/// The command line as the README documents it (issue 33).
@Suite struct CommandLineTests {
    static let register = #"{"commandId":"r1","type":"RegisterUser","data":{"userId":"u1","username":"anna","email":"a@example.org","passwordHash":"\#(testPasswordHash)"}}"#

    @Test func pantryDataIsHonouredByEveryCommand() throws {
        let data = try PantryBinary.temporaryDirectory(), elsewhere = try PantryBinary.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: data)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let environment = ["PANTRY_DATA": data.path]
        let submitted = try PantryBinary.run(["submit"], environment: environment, in: elsewhere, input: Data((Self.register + "\n").utf8))
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let stats = try PantryBinary.run(["stats", "--json"], environment: environment, in: elsewhere)
        #expect(stats.status == 0 && stats.stdout.jsonObject?["head"] as? Int == 1, "\(stats.stdout)\(stats.stderr)")
        let status = try PantryBinary.run(["status", "--json"], environment: environment, in: elsewhere)
        #expect(status.stdout.jsonObject?["head"] as? Int == 1, "\(status.stderr)")
        let processes = status.stdout.jsonObject?["processes"] as? [[String: Any]] ?? []
        #expect(processes.map { $0["name"] as? String } == ["core", "leaderboard", "carts", "favourites", "groceries", "experiences",
                                                          "fetch", "api"])
        #expect(processes.allSatisfy { $0["running"] as? Bool == false } && status.status == 1,
                "every process listed, none running: exit 1")
        let events = try PantryBinary.run(["events"], environment: environment, in: elsewhere)
        #expect(events.status == 0 && events.lines.count == 1, "\(events.stderr)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("data").path), "nothing made in ./data")
    }

    /// Issue 45: `pantry stats` without `--data` made `./data` where it was run.
    @Test func aReadOnlyCommandNeverCreatesADataDirectory() throws {
        let elsewhere = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let named = elsewhere.appendingPathComponent("named")
        let copy = elsewhere.appendingPathComponent("copy").path
        for command in [["stats"], ["status"], ["events"], ["stats", "--json"], ["status", "--json"], ["backup", copy]] {
            for arguments in [command, command + ["--data", named.path]] {
                let run = try PantryBinary.run(arguments, environment: [:], in: elsewhere)
                #expect(run.status == 1 && run.stderr.contains("there is no event log"), "\(arguments): \(run.stderr)")
            }
        }
        for arguments in [["config"], ["config", "--data", named.path]] {
            let run = try PantryBinary.run(arguments, environment: [:], in: elsewhere)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "neither ./data nor --data's directory made")
    }

    /// Issue 45: `pantry status` said the API was down when it listened on another port than 8080.
    @Test func statusFindsTheAPIAtItsConfiguredPort() async throws {
        let data = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let submitted = try PantryBinary.run(["submit", "--data", data.path], environment: [:], input: Data((Self.register + "\n").utf8))
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let port = try PantryBinary.freePort(), other = try PantryBinary.freePort()
        let api = Process()
        api.executableURL = PantryBinary.url
        api.arguments = ["api", "--data", data.path, "--port", String(port)]
        api.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PANTRY_") }
        api.standardOutput = FileHandle.nullDevice
        api.standardError = FileHandle.nullDevice
        try api.run()
        defer { api.terminate(); api.waitUntilExit() }
        func apiRunning(_ arguments: [String], _ environment: [String: String] = [:]) throws -> Bool? {
            let status = try PantryBinary.run(["status", "--json", "--data", data.path] + arguments, environment: environment)
            let processes = status.stdout.jsonObject?["processes"] as? [[String: Any]] ?? []
            return processes.first { $0["name"] as? String == "api" }?["running"] as? Bool
        }
        #expect(try await waitUntil(timeout: .seconds(30), interval: .milliseconds(200)) { try apiRunning(["--port", String(port)]) == true },
                "--port")
        #expect(try apiRunning([], ["PANTRY_PORT": String(port)]) == true, "PANTRY_PORT")
        let file = data.appendingPathComponent("pantry.json")
        try Data(#"{"port": \#(port), "host": "127.0.0.1"}"#.utf8).write(to: file)
        #expect(try apiRunning(["--config", file.path]) == true, "the configuration file's port and host")
        #expect(try apiRunning([], ["PANTRY_PORT": String(other)]) == false, "nothing listens on the other port")
    }

    @Test func runtimeFailuresExitOneWithoutTheUsageAndUsageErrorsExit64() throws {
        let empty = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        let stats = try PantryBinary.run(["stats", "--data", empty.path], environment: [:])
        #expect(stats.status == 1 && stats.stderr == "pantry stats: there is no event log at \(empty.path)/events.sqlite\n", "\(stats.stderr)")
        let replay = try PantryBinary.run(["replay", "--data", empty.path], environment: [:])
        #expect(replay.status == 1 && replay.stderr.hasPrefix("pantry replay: ") && !replay.stderr.contains("Usage:"), "\(replay.stderr)")
        let source = try PantryBinary.run(["catalog", "import", "--data", empty.path, "--source", "/nonexistent.json"], environment: [:])
        #expect(source.status == 1 && source.stderr.hasPrefix("pantry catalog import: cannot read /nonexistent.json"), "\(source.stderr)")
        #expect(!source.stderr.contains("Usage:"))
        let usage = try PantryBinary.run(["stats", "--no-such-flag"], environment: [:])
        #expect(usage.status == 64 && usage.stderr.contains("Usage:"), "\(usage.stderr)")
    }

    /// `pantry --help` lists the subcommands; each of them, and each of theirs, prints its usage
    /// with `--help` and exits 0 (issue 46: all of them printed an internal error and exited 1).
    @Test func helpPrintsUsageAndExitsZeroOnEveryCommand() throws {
        var commands: [[String]] = [[]]
        var checked = 0
        while let command = commands.popLast() {
            for arguments in [command + ["--help"], ["help"] + command] {
                let help = try PantryBinary.run(arguments, environment: [:])
                #expect(help.status == 0 && help.stdout.contains("USAGE: pantry") && help.stderr.isEmpty,
                        "pantry \(arguments.joined(separator: " ")): \(help.status) \(help.stderr)")
                checked += 1
                if arguments.last == "--help" { commands += Self.subcommands(in: help.stdout).map { command + [$0] } }
            }
        }
        // The 16 top-level commands, `catalog import` and `loadtest compare`, and `pantry` itself, twice each.
        #expect(checked >= 2 * 19, "\(checked)")
    }

    /// The names under SUBCOMMANDS: in a usage text: each is a line indented by two spaces (its
    /// description's further lines are indented more), before "See 'pantry help ...'".
    static func subcommands(in usage: String) -> [String] {
        guard let section = usage.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [] }
        return section.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.isEmpty && !$0.hasPrefix("  See ") }
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "help" }
    }

    /// `.cache/catalog/recipes_en-us.json` is the repository's, not the working directory's.
    @Test func catalogImportWorksOutsideTheRepository() throws {
        let data = try PantryBinary.temporaryDirectory(), elsewhere = try PantryBinary.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: data)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let source = PantryBinary.repositoryRoot.appendingPathComponent(".cache/catalog/recipes_en-us.json").path
        let run = try PantryBinary.run(["catalog", "import", "--data", data.path], environment: [:], in: elsewhere)
        if FileManager.default.fileExists(atPath: source) {
            #expect(run.status == 0, "\(run.stderr)")
            #expect((run.stdout.jsonObject?["recipes"] as? Int ?? 0) > 3000)
            #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("catalog-import.json").path))
        } else {
            // Without ops/setup's download: where it was looked for, and what to do.
            #expect(run.status == 1 && run.stderr.contains(source) && run.stderr.contains("--source"), "\(run.stderr)")
        }
    }

    @Test("pantry catalog import lists what it left out, with the reason, and how many recipes have a time and servings")
    func catalogImportReportsItsRejects() throws {
        let data = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let source = data.appendingPathComponent("pages.json")
        try Data(#"""
            {"Cookbook:Pie": {"title": "Pie", "ingredients": ["1 crust", "Optional:", "Cream"], "steps": ["Bake 30 minutes.", "Serve."], "servings": "6"},
             "Cookbook:Empty": {"title": "Empty", "ingredients": [], "steps": ["Nothing."]}}
            """#.utf8).write(to: source)
        let run = try PantryBinary.run(["catalog", "import", "--data", data.path, "--source", source.path], environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = run.stdout.jsonObject
        #expect(summary?["recipes"] as? Int == 1 && summary?["withTime"] as? Int == 1 && summary?["withServings"] as? Int == 1)
        let rejected = (summary?["rejected"] as? [[String: Any]] ?? []).map { "\($0["page"] ?? "") \($0["line"] ?? "-") \($0["reason"] ?? "")" }
        #expect(rejected.sorted() == ["Cookbook:Empty - no ingredient", "Cookbook:Pie Optional: a heading, not an ingredient"], "\(run.stdout)")
    }

    /// The fetch worker says so when it serves only the bundled recipes.
    @Test func theFetchWorkerWarnsWhenTheImportedCatalogIsMissing() throws {
        let data = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let process = Process()
        process.executableURL = PantryBinary.url
        process.arguments = ["fetch", "--data", data.path]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PANTRY_") }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        let missing = data.appendingPathComponent("catalog-import.json").path
        var seen = ""
        let deadline = Date().addingTimeInterval(30)
        while !seen.contains(missing), Date() < deadline {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(seen.contains("warning") && seen.contains(missing) && seen.contains("pantry catalog import"), "\(seen)")
    }
}
