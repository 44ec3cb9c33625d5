import Foundation
import Testing

/// One configuration, read the same way by every command: a flag beats its `PANTRY_*` variable,
/// which beats the file, which beats the default; `pantry config` says which one won, never prints
/// a secret, and a value that cannot be used stops the command with its key named.
@Suite struct ConfigurationTests {
    /// `pantry config --json`, as key → (value, origin, source).
    func settings(_ arguments: [String] = [], environment: [String: String] = [:], in directory: URL? = nil) throws
        -> [String: (value: String, origin: String, source: String?)] {
        let run = try PantryBinary.run(["config", "--json"] + arguments, environment: environment, in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(run.stdout.jsonObject, "\(run.stdout)")
        let settings = try #require(report["settings"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: settings.map {
            ($0["key"] as? String ?? "", ($0["value"] as? String ?? "", $0["origin"] as? String ?? "", $0["source"] as? String))
        })
    }

    @Test func theEnvironmentBeatsTheDefaultAndAFlagBeatsTheEnvironment() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = try settings(["--data", directory.path],
                                 environment: ["PANTRY_PORT": "9090", "PANTRY_DATA": "/nowhere", "PANTRY_CORE_LOG": "tcp://core:7003",
                                               "PANTRY_INSECURE_NETWORK": "true"])
        #expect(found["port"]?.value == "9090" && found["port"]?.origin == "environment" && found["port"]?.source == "PANTRY_PORT")
        #expect(found["data"]?.value == directory.path && found["data"]?.origin == "flag" && found["data"]?.source == "--data")
        #expect(found["core-log"]?.value == "tcp://core:7003" && found["core-log"]?.origin == "environment")
        #expect(found["insecure-network"]?.value == "true" && found["keys"]?.value == "\(directory.path)/keys")
        #expect(found["host"]?.value == "127.0.0.1" && found["host"]?.origin == "default" && found["host"]?.source == nil)
        // Defaults that live in the data directory follow it.
        #expect(found["core-commands"]?.value == "ipc://\(directory.path)/core-commands.sock")
        #expect(found["log"]?.value == "\(directory.path)/events.sqlite" && found["log"]?.origin == "default")
        // Every key is listed, each once.
        #expect(found.count >= 45, "\(found.keys.sorted())")
    }

    @Test func theFileIsReadBelowTheEnvironment() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pantry.json")
        try Data(#"{"port": 7000, "log-level": "debug", "max-connections": 10, "recipe-reuse": 0.5, "provider": "mealdb"}"#.utf8).write(to: file)
        for (arguments, environment) in [(["--config", file.path], [String: String]()), ([], ["PANTRY_CONFIG": file.path])] {
            let found = try settings(arguments, environment: environment.merging(["PANTRY_MAX_CONNECTIONS": "20"]) { a, _ in a })
            #expect(found["config"]?.value == file.path && found["config"]?.origin == (arguments.isEmpty ? "environment" : "flag"))
            #expect(found["port"]?.value == "7000" && found["port"]?.origin == "file" && found["port"]?.source == file.path)
            #expect(found["log-level"]?.value == "debug" && found["recipe-reuse"]?.value == "0.5" && found["provider"]?.value == "mealdb")
            #expect(found["max-connections"]?.value == "20" && found["max-connections"]?.origin == "environment")
        }
        // A key the file cannot set is an error, so that a misspelt one is not silently ignored.
        try Data(#"{"prot": 7000}"#.utf8).write(to: file)
        let misspelt = try PantryBinary.run(["config", "--config", file.path], environment: [:])
        #expect(misspelt.status == 64 && misspelt.stderr.contains("\"prot\""), "\(misspelt.stderr)")
        let missing = try PantryBinary.run(["config"], environment: ["PANTRY_CONFIG": directory.appendingPathComponent("none.json").path])
        #expect(missing.status == 64 && missing.stderr.contains("PANTRY_CONFIG=") && missing.stderr.contains("cannot read"), "\(missing.stderr)")
    }

    @Test func secretsAreNeverPrinted() throws {
        let secrets = ["PANTRY_TOKEN_KEY": "token-secret-" + String(repeating: "k", count: 40),
                       "PANTRY_SPOONACULAR_KEY": "spoonacular-secret-key",
                       "PANTRY_LOG": "postgres://pantry:pg-secret-password@db.example:5432/pantry"]
        for format in [["--json"], []] {
            let run = try PantryBinary.run(["config"] + format, environment: secrets)
            #expect(run.status == 0, "\(run.stderr)")
            for secret in ["token-secret", "spoonacular-secret-key", "pg-secret-password"] {
                #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "\(secret) printed")
            }
            #expect(run.stdout.contains("postgres://pantry:********@db.example:5432/pantry"), "\(run.stdout)")
        }
        let found = try settings(environment: secrets)
        #expect(found["token-key"]?.value == "********" && found["token-key"]?.origin == "environment")
        #expect(found["spoonacular-key"]?.value == "********" && found["provider"]?.value == "spoonacular")
        // Not even a secret that cannot be used is printed.
        let short = try PantryBinary.run(["config"], environment: ["PANTRY_TOKEN_KEY": "short-secret"])
        #expect(short.status == 64 && short.stderr.contains("token-key") && short.stderr.contains("PANTRY_TOKEN_KEY"))
        #expect(short.stderr.contains("at least 32 bytes") && !short.stderr.contains("short-secret"), "\(short.stderr)")
    }

    @Test(arguments: [
        (["PANTRY_PORT": "abc"], "port: PANTRY_PORT=abc (environment) must be a whole number from 1 to 65535"),
        (["PANTRY_PORT": "0"], "port: PANTRY_PORT=0 (environment) must be a whole number from 1 to 65535"),
        (["PANTRY_SPOONACULAR_DAILY_QUOTA": "lots"], "spoonacular-daily-quota: PANTRY_SPOONACULAR_DAILY_QUOTA=lots"),
        (["PANTRY_SPOONACULAR_URL": "ftp://x"], "spoonacular-url: PANTRY_SPOONACULAR_URL=ftp://x (environment) must be an http(s) URL"),
        (["PANTRY_PROVIDER": "spoonacular"], "provider: spoonacular needs spoonacular-key (PANTRY_SPOONACULAR_KEY)"),
        (["PANTRY_PROVIDER": "bing"], "provider: PANTRY_PROVIDER=bing (environment) must be one of spoonacular, mealdb, catalog"),
        (["PANTRY_LOG_LEVEL": "loud"], "log-level: PANTRY_LOG_LEVEL=loud (environment) must be one of trace"),
        (["PANTRY_LOG": "mysql://x"], "log: PANTRY_LOG=mysql://x (environment) must be postgres://"),
        (["PANTRY_FEED_HIGH_WATER_MARK": "-1"], "feed-high-water-mark: PANTRY_FEED_HIGH_WATER_MARK=-1"),
        (["PANTRY_CORE_EVENTS": "core:7002"], "core-events: PANTRY_CORE_EVENTS=core:7002 (environment) must be a ZeroMQ endpoint"),
        (["PANTRY_TRUSTED_PROXIES": "balancer"], "trusted-proxies: PANTRY_TRUSTED_PROXIES=balancer"),
        (["PANTRY_HEADER_TIMEOUT": "0"], "header-timeout: PANTRY_HEADER_TIMEOUT=0 (environment) must be a number above 0, at most 3600"),
        (["PANTRY_WORKER_SNAPSHOT_SECONDS": "-5"], "worker-snapshot-seconds: PANTRY_WORKER_SNAPSHOT_SECONDS=-5 (environment) must be a whole number from 0 to 86400"),
        (["PANTRY_DELETION_SNAPSHOT_SECONDS": "86400"], "deletion-snapshot-seconds: PANTRY_DELETION_SNAPSHOT_SECONDS=86400 (environment) must be a whole number from 0 to 3600"),
    ] as [([String: String], String)])
    func aBadValueExitsNamingItsKeyAndWhatIsAllowed(_ environment: [String: String], _ message: String) throws {
        let run = try PantryBinary.run(["config"], environment: environment)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("pantry config: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(!run.stderr.contains("Usage:"), "a configuration error is not a usage text")
    }

    @Test func everyCommandReadsTheSameWay() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pantry.json")
        try Data(#"{"port": 0}"#.utf8).write(to: file)
        // A bad flag, a bad value in the file: the API stops before it starts anything.
        let flag = try PantryBinary.run(["api", "--data", directory.path, "--port", "70000"], environment: [:])
        #expect(flag.status == 64 && flag.stderr.contains("port: --port 70000 (flag) must be a whole number from 1 to 65535"), "\(flag.stderr)")
        let filed = try PantryBinary.run(["api", "--data", directory.path, "--config", file.path], environment: [:])
        #expect(filed.status == 64 && filed.stderr.contains("port: \"port\": 0 in \(file.path) (file)"), "\(filed.stderr)")
        let fetch = try PantryBinary.run(["fetch", "--data", directory.path], environment: ["PANTRY_FETCH_TIMEOUT": "forever"])
        #expect(fetch.status == 64 && fetch.stderr.contains("pantry fetch: fetch-timeout: PANTRY_FETCH_TIMEOUT=forever"), "\(fetch.stderr)")
        let core = try PantryBinary.run(["core", "--data", directory.path, "--command-id-filter-mib", "2000000"], environment: [:])
        #expect(core.status == 64 && core.stderr.contains("command-id-filter-mib: --command-id-filter-mib 2000000 (flag)"), "\(core.stderr)")
    }

    @Test("a pace that is not BURST/SECONDS stops the core before it starts anything, naming the key")
    func aBadPaceIsRefused() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (key, value) in [("POINTS", "60"), ("POINTS", "0/360"), ("POINTS", "60/0"), ("POINTS", "60/soon"), ("TIPS", "-1/5"),
                             ("TIPS", "10/360/1"), ("TIPS", "10/nan")] {
            let run = try PantryBinary.run(["core", "--data", directory.path], environment: ["PANTRY_\(key)_PACE": value])
            #expect(run.status == 64 && run.stderr.contains("\(key.lowercased())-pace: PANTRY_\(key)_PACE=\(value)")
                    && run.stderr.contains("BURST/SECONDS"), "\(value): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("events.sqlite").path))
    }
}
