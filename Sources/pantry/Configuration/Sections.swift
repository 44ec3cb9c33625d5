import Foundation
import Logging
import PantryAPI
import PantryHTTP
import PantryBounded
import PantryBus
import PantryDomain
import PantryFetch
import PantryMail
import PantryPostgresLog
import PantryWire
import ZeroMQ

/// The keys, by the part of Pantry that reads them. Each section reads its keys once, validates
/// them and hands the libraries their own configuration values (`BusEndpoints`,
/// `APIServer.Configuration`, `FetchConfiguration`); the defaults are the libraries' own.
extension ConfigurationSources {
    /// Every key, as `pantry config` prints them and the README's table lists them.
    static let keys: Set<String> = {
        let deployment = ["config", "data", "log", "log-timeout", "log-level",
                          "core-commands", "core-events", "core-log", "fetch-endpoint", "feed-high-water-mark",
                          "keys", "insecure-network"]
        let queries = WorkerName.allCases.map { "\($0.rawValue)-queries" }
        let core = ["snapshot-every", "deletion-snapshot-seconds", "command-id-filter-mib", "points-pace", "tips-pace",
                    "worker-snapshot-seconds"]
        let api = ["host", "port", "core-timeout", "token-lifetime", "token-key", "password-cost",
                   "login-rate-per-client", "login-rate-overall", "trusted-proxies", "header-timeout", "body-timeout",
                   "idle-timeout", "max-connections", "max-connections-per-address", "recipe-reuse", "cors-origins",
                   "access-log", "docs-assets", "live-heartbeat", "smtp-url", "mail-from", "public-url"]
        let fetch = ["provider", "spoonacular-key", "spoonacular-url", "mealdb-url", "spoonacular-daily-quota",
                     "spoonacular-rate", "spoonacular-burst", "spoonacular-concurrency", "fetch-client-burst",
                     "fetch-client-per-hour", "fetch-overall-per-hour", "fetch-timeout", "fetch-stale-after", "fetch-fallback-after", "catalog",
                     "catalog-seed"]
        return Set(deployment + queries + core + api + fetch)
    }()

    /// Never printed, not even in an error. (The password of a `log` URL is masked too.)
    static let secretKeys: Set<String> = ["token-key", "spoonacular-key"]

    // MARK: Every command that touches a deployment

    /// `data`, `log`, `log-timeout`, `log-level`.
    func deployment() throws -> Deployment {
        let data = try text("data", shown: "./data") ?? "./data"
        let sqlite = URL(fileURLWithPath: data).standardizedFileURL.appendingPathComponent("events.sqlite").path
        let postgres = try parsed("log", shown: sqlite, expected: "postgres://USER[:PASSWORD]@HOST:PORT/DATABASE, or left out for the SQLite log in the data directory",
                                  mask: Self.withoutPassword) { text in
            PostgresLogAddress.isPostgres(text) ? try? PostgresLogAddress(text) : nil
        }
        // Each connection to a PostgreSQL log and each statement waits at most this long.
        let logTimeout = try double("log-timeout", default: 5, in: 0.1...600)
        let levels = Logger.Level.allCases.map(\.rawValue)
        let logLevel = try parsed("log-level", shown: Logger.Level.info.rawValue,
                                  expected: "one of \(levels.joined(separator: ", "))") { Logger.Level(rawValue: $0) } ?? .info
        return Deployment(data: data, postgres: postgres, logTimeout: .milliseconds(Int64((logTimeout * 1000).rounded())), logLevel: logLevel)
    }

    /// `postgres://pantry:********@db:5432/pantry`: a log's address as it may be printed.
    /// By hand: URLComponents reads no host list (`h1:5432,h2:5432`), and would print it unmasked.
    static func withoutPassword(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        return String(url[..<authority.index(after: colon)]) + masked + String(url[at...])
    }

    // MARK: Where the processes meet

    /// `core-commands`, `core-events`, `core-log`, `fetch-endpoint`, `<worker>-queries`,
    /// `feed-high-water-mark`: `ipc://` sockets in the data directory unless set. With `core-log`
    /// set (`logServiceNamed`) a worker, the API or a replay reads the log through the core's log
    /// service (from another host) rather than the log itself.
    func endpoints(_ dataDirectory: URL) throws -> (bus: BusEndpoints, logServiceNamed: Bool) {
        var bus = BusEndpoints(dataDirectory: dataDirectory)
        bus.commands = try endpoint("core-commands", default: bus.commands)
        bus.events = try endpoint("core-events", default: bus.events)
        bus.log = try endpoint("core-log", default: bus.log)
        let logServiceNamed = isSet("core-log")
        bus.fetch = try endpoint("fetch-endpoint", default: bus.fetch)
        for worker in WorkerName.allCases {
            bus.queries[worker] = try endpoint("\(worker.rawValue)-queries", default: bus.queries(of: worker), several: true)
        }
        bus.feedHighWaterMark = try int("feed-high-water-mark", default: bus.feedHighWaterMark, in: 1...Int(Int32.max))
        bus.security = try security(of: bus, dataDirectory)
        return (bus, logServiceNamed)
    }

    /// `keys`, `insecure-network`: CURVE on every `tcp://` endpoint with the keys directory's
    /// keys (docs/keys.md), so a bus that uses TCP needs them, unless the operator explicitly
    /// says the network is trusted. `ipc://` (the one-host default) needs nothing.
    private func security(of bus: BusEndpoints, _ dataDirectory: URL) throws -> ZMQNetworkSecurity {
        let directory = dataDirectory.standardizedFileURL.appendingPathComponent("keys").path
        let keysDirectory = try text("keys", shown: directory) ?? directory
        let insecure = try bool("insecure-network", default: false)
        // Keys here mean this host was set up for CURVE: turning it off would leave the network
        // open while its operator believes it closed (issue 45: one line at start said so).
        if insecure, let secret = NetworkKeys.secretFiles(in: URL(fileURLWithPath: keysDirectory, isDirectory: true)).first {
            throw ConfigurationError("""
                insecure-network: \(keysDirectory) holds this host's secret CURVE key (\(secret)), and --insecure-network \
                (PANTRY_INSECURE_NETWORK) would run tcp:// without it, readable and writable by anyone on the network: \
                leave out --insecure-network to use the keys, or, on a network you trust, point --keys (PANTRY_KEYS) at a \
                directory without a .secret file
                """)
        }
        guard bus.usesTCP, !insecure else { return .plain }
        let keys: NetworkKeys?
        do {
            keys = try NetworkKeys.load(URL(fileURLWithPath: keysDirectory, isDirectory: true))
        } catch {
            throw ConfigurationError("keys: \(error)")
        }
        guard let keys else {
            let tcp = [bus.commands, bus.events, bus.log, bus.fetch].first { $0.hasPrefix("tcp://") } ?? "a worker's queries endpoint"
            throw ConfigurationError("""
                keys: \(tcp) is TCP, and the internal network needs CURVE keys, but \(keysDirectory) has no .secret file: \
                run `pantry keys --role ROLE --host ADDRESS --keys \(keysDirectory)` on this host and copy the other hosts' \
                .public files there (docs/keys.md), or pass --insecure-network (PANTRY_INSECURE_NETWORK=true) on a trusted network
                """)
        }
        do {
            return .curve(try bus.curvePolicy(keys))
        } catch {
            throw ConfigurationError("keys: \(error)")
        }
    }

    private func endpoint(_ key: String, default defaultValue: String, several: Bool = false) throws -> String {
        let expected = several
            ? "ZeroMQ endpoints (tcp://HOST:PORT or ipc://PATH) separated by spaces"
            : "a ZeroMQ endpoint: tcp://HOST:PORT or ipc://PATH"
        return try parsed(key, shown: defaultValue, expected: expected) { text in
            let endpoints = text.split(separator: " ")
            let valid = endpoints.allSatisfy { endpoint in
                ["tcp://", "ipc://", "inproc://"].contains { endpoint.hasPrefix($0) && endpoint.count > $0.count }
            }
            return valid && !endpoints.isEmpty && (several || endpoints.count == 1) ? text : nil
        } ?? defaultValue
    }

    // MARK: The core

    /// `snapshot-every`, `deletion-snapshot-seconds`, `command-id-filter-mib`, `points-pace`, `tips-pace`.
    func core() throws -> CoreSettings {
        CoreSettings(
            snapshotEvery: Int64(try int("snapshot-every", default: 100_000, in: 1...1_000_000_000)),
            // How long a deleted user's name digests may stay in the snapshot: at most an hour.
            deletionSnapshotInterval: .seconds(try int("deletion-snapshot-seconds", default: 60, in: 0...3600)),
            commandIdFilterMiB: try int("command-id-filter-mib", default: 64, in: 0...(1 << 20)),
            paces: Paces(points: try pace("points-pace", default: Paces.human.points),
                         tips: try pace("tips-pace", default: Paces.human.tips)))
    }

    /// `worker-snapshot-seconds`: how often a worker on the core's host leaves a copy of its
    /// projection for the log service to serve to new worker hosts; nil (0) for never.
    func workerSnapshotInterval() throws -> Duration? {
        let seconds = try int("worker-snapshot-seconds", default: 300, in: 0...86_400)
        return seconds == 0 ? nil : .seconds(seconds)
    }

    /// `BURST/SECONDS`: at most BURST at once, then one every SECONDS (`Pace`). Only benchmarks
    /// and load tests of more than people do need another than the default.
    private func pace(_ key: String, default pace: Pace) throws -> Pace {
        let shown = "\(pace.burst)/\(Self.format(Double(pace.interval) / 1000))"
        return try parsed(key, shown: shown, expected: "BURST/SECONDS: a whole number from 1 to 1000000000, then a number of seconds from 0.001 to 86400") { text in
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let burst = Int(parts[0]), (1...1_000_000_000).contains(burst),
                  let seconds = Double(parts[1]), seconds.isFinite, (0.001...86_400).contains(seconds) else { return nil }
            return Pace(burst: burst, interval: Int64((seconds * 1000).rounded()))
        } ?? pace
    }

    // MARK: The API

    /// The API's keys, over the library's defaults in `configuration`.
    func api(_ configuration: inout APIServer.Configuration) throws {
        configuration.host = try text("host", shown: configuration.host) ?? configuration.host
        configuration.port = try int("port", default: configuration.port, in: 1...65535)
        configuration.coreTimeout = try duration("core-timeout", default: configuration.coreTimeout, in: 0...600)
        configuration.tokenLifetimeSeconds = Int64(try int("token-lifetime", default: Int(configuration.tokenLifetimeSeconds),
                                                           in: 1...10 * 365 * 86_400))
        configuration.tokenKey = try tokenKey(configuration.dataDirectory)
        configuration.snapshotEvery = Int64(try int("snapshot-every", default: Int(configuration.snapshotEvery), in: 1...1_000_000_000))
        configuration.passwordLogN = try int("password-cost", default: configuration.passwordLogN, in: PasswordHasher.logNRange)
        // A rate R allows R a second with a burst of 10 R.
        for (key, limit) in [("login-rate-per-client", \APIServer.Configuration.loginLimitPerClient),
                             ("login-rate-overall", \APIServer.Configuration.loginLimitOverall)] {
            let rate = try double(key, default: configuration[keyPath: limit].perSecond, in: 0...1_000_000, above: true)
            if isSet(key) { configuration[keyPath: limit] = RateLimit(perSecond: rate, burst: max(rate * 10, 1)) }
        }
        configuration.trustedProxies = try parsed("trusted-proxies", shown: "none", expected: "IP addresses separated by commas or spaces") {
            HTTPSettings.proxyAddresses($0)
        } ?? configuration.trustedProxies
        for (key, timeout) in [("header-timeout", \APIServer.Configuration.headerTimeout),
                               ("body-timeout", \APIServer.Configuration.bodyTimeout),
                               ("idle-timeout", \APIServer.Configuration.idleTimeout)] {
            let seconds = try double(key, default: Double(configuration[keyPath: timeout].nanoseconds) / 1e9, in: 0...3600, above: true)
            configuration[keyPath: timeout] = .milliseconds(Int64(seconds * 1000))
        }
        configuration.maxConnections = try int("max-connections", default: configuration.maxConnections, in: 1...1_000_000)
        configuration.maxConnectionsPerAddress = try int("max-connections-per-address",
                                                         default: configuration.maxConnectionsPerAddress, in: 1...1_000_000)
        configuration.recipeReuse = try duration("recipe-reuse", default: configuration.recipeReuse, in: 0...60, above: false)
        configuration.liveHeartbeat = try duration("live-heartbeat", default: configuration.liveHeartbeat, in: 0...300)
        configuration.corsOrigins = try parsed("cors-origins", shown: "none", expected: "origins separated by commas") {
            APIServer.Configuration.origins($0)
        } ?? configuration.corsOrigins
        let accessLog = configuration.accessLogPath ?? "off"
        switch try text("access-log", shown: accessLog) ?? accessLog {
        case "off": configuration.accessLogPath = nil
        case let path: configuration.accessLogPath = path
        }
        let docs = RepositoryFiles.locate(configuration.docsAssets) ?? configuration.docsAssets
        configuration.docsAssets = try text("docs-assets", shown: docs) ?? docs
    }

    /// `smtp-url`, `mail-from`, `public-url`: where the API sends password reset links, from whom,
    /// and the web app's address the links start with; nil without `smtp-url` (no mail is sent).
    func mail(host: String, port: Int) throws -> MailSettings? {
        let smtp: String? = try parsed("smtp-url", shown: "none (no mail: password resets answer 503)",
                              expected: "smtp://HOST:PORT or smtps://HOST:PORT, with USER:PASSWORD@ if the server wants them",
                              mask: Self.withoutPassword) { (text: String) -> String? in
            guard let components = URLComponents(string: text), ["smtp", "smtps"].contains(components.scheme ?? ""),
                  components.host?.isEmpty == false else { return nil }
            return text
        }
        let from = try parsed("mail-from", shown: "pantry@localhost", expected: "an email address, name@example.org") { (text: String) -> String? in
            MailMessage.isPlainAddress(text) ? text : nil
        } ?? "pantry@localhost"
        let shownHost = host == "0.0.0.0" ? "127.0.0.1" : host
        let publicURL = try url("public-url", default: "http://\(shownHost):\(port)")
        return smtp.map { MailSettings(smtpURL: $0, from: from, publicURL: publicURL) }
    }

    /// `token-key`: the API's, and the load test's to register its users as the operator.
    func tokenKey(_ dataDirectory: URL) throws -> String? {
        let file = dataDirectory.standardizedFileURL.appendingPathComponent("api-token.key").path
        return try parsed("token-key", shown: "\(file), made once", expected: "at least 32 bytes") { $0.utf8.count >= 32 ? $0 : nil }
    }

    private func duration(_ key: String, default defaultValue: Duration, in range: ClosedRange<Double>, above: Bool = true) throws -> Duration {
        let seconds = try double(key, default: Double(defaultValue.components.seconds) + Double(defaultValue.components.attoseconds) / 1e18,
                                 in: range, above: above)
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    // MARK: The fetch worker

    /// The fetch worker's keys, over the library's defaults in `configuration`.
    func fetch(_ configuration: inout FetchConfiguration) throws {
        configuration.spoonacularKey = try text("spoonacular-key")
        let providers = FetchConfiguration.Provider.allCases.map(\.rawValue)
        let chosen = configuration.spoonacularKey == nil ? FetchConfiguration.Provider.catalog : .spoonacular
        configuration.primary = try parsed("provider", shown: chosen.rawValue, expected: "one of \(providers.joined(separator: ", "))") {
            FetchConfiguration.Provider(rawValue: $0.lowercased())
        } ?? chosen
        if configuration.primary == .spoonacular, configuration.spoonacularKey == nil {
            throw ConfigurationError("provider: spoonacular needs spoonacular-key (\(Self.environmentName("spoonacular-key"))) to be set")
        }
        configuration.spoonacularURL = try url("spoonacular-url", default: configuration.spoonacularURL)
        configuration.mealdbURL = try url("mealdb-url", default: configuration.mealdbURL)
        configuration.spoonacularLimits.dailyQuota = try int("spoonacular-daily-quota", default: configuration.spoonacularLimits.dailyQuota ?? 150,
                                                            in: 0...1_000_000)
        configuration.spoonacularLimits.ratePerSecond = try double("spoonacular-rate", default: configuration.spoonacularLimits.ratePerSecond,
                                                                   in: 0.001...1000)
        configuration.spoonacularLimits.burst = try double("spoonacular-burst", default: configuration.spoonacularLimits.burst, in: 1...1000)
        configuration.spoonacularLimits.maxConcurrent = try int("spoonacular-concurrency", default: configuration.spoonacularLimits.maxConcurrent,
                                                                in: 1...100)
        configuration.upstreamCallsPerClient.burst = try double("fetch-client-burst", default: configuration.upstreamCallsPerClient.burst,
                                                                in: 1...1_000_000)
        configuration.upstreamCallsPerClient.perSecond = try double("fetch-client-per-hour",
                                                                    default: configuration.upstreamCallsPerClient.perSecond * 3600,
                                                                    in: 1...1_000_000_000) / 3600
        let overall = Double(try int("fetch-overall-per-hour", default: 0, in: 1...1_000_000_000, shown: "a twelfth of the daily quota"))
        if isSet("fetch-overall-per-hour") {
            configuration.upstreamCallsOverall = RateLimit(perSecond: overall / 3600, burst: max(1, overall / 10))
        }
        configuration.requestTimeout = try double("fetch-timeout", default: configuration.requestTimeout, in: 0.1...300)
        configuration.staleAfter = try double("fetch-stale-after", default: configuration.staleAfter, in: 0...60)
        configuration.fallbackAfter = try double("fetch-fallback-after", default: configuration.fallbackAfter, in: 0...60)
        configuration.catalogFile = try text("catalog", shown: "the bundled catalog")
        let seed = try int("catalog-seed", default: 0, in: 0...Int.max, shown: "random")
        if isSet("catalog-seed") { configuration.catalogSeed = UInt64(seed) }
    }

    private func url(_ key: String, default defaultValue: String) throws -> String {
        try parsed(key, shown: defaultValue, expected: "an http(s) URL") { text in
            guard let components = URLComponents(string: text), ["http", "https"].contains(components.scheme ?? ""),
                  components.host?.isEmpty == false else { return nil }
            return text
        } ?? defaultValue
    }
}

/// The API's mail, as configured.
struct MailSettings {
    var smtpURL: String
    var from: String
    var publicURL: String
}

/// What every command that touches a deployment reads first.
struct Deployment {
    /// The data directory (`data`), as given.
    var data: String
    /// The log in PostgreSQL (`log`), or nil for the SQLite file in the data directory.
    var postgres: PostgresLogAddress?
    /// The longest a connection to a PostgreSQL log, or one statement, is waited for (`log-timeout`).
    var logTimeout: Duration
    var logLevel: Logger.Level
}

struct CoreSettings {
    var snapshotEvery: Int64
    var deletionSnapshotInterval: Duration
    var commandIdFilterMiB: Int
    var paces: Paces
}

/// Files `ops/setup` downloads into the repository's `.cache/` (the Wikibooks Cookbook, ReDoc's
/// script), found from the working directory, else in the repository the binary was built in
/// (`REPO/.build/TRIPLE/CONFIGURATION/pantry`), so that the commands work from any directory.
enum RepositoryFiles {
    static func locate(_ relative: String) -> String? {
        candidates(relative).first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Where `relative` is looked for, in order.
    static func candidates(_ relative: String) -> [String] {
        guard !relative.hasPrefix("/") else { return [relative] }
        var found = [URL(fileURLWithPath: relative).standardizedFileURL.path]
        if let repository, case let path = repository.appendingPathComponent(relative).standardizedFileURL.path, !found.contains(path) {
            found.append(path)
        }
        return found
    }

    /// The directory above the binary that holds `Package.swift`.
    static let repository: URL? = {
        var directory = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        while let current = directory, current.path != "/" {
            if FileManager.default.fileExists(atPath: current.appendingPathComponent("Package.swift").path) { return current }
            directory = current.deletingLastPathComponent()
        }
        return nil
    }()
}
