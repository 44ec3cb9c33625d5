import ArgumentParser
import Foundation
import Logging
import PantryAPI
import PantryBus
import PantryCore
import PantryFetch
import PantryPostgresLog
import PantryBounded
import PantryLog
import PantryKeys
import PantryEventStore

struct API: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Run the HTTP API: accounts, sessions and the command endpoints, talking to the core over ZeroMQ.")

    @OptionGroup var options: DataOptions

    @Option(help: "The port to listen on; default PANTRY_PORT or 8080.")
    var port: Int?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Seconds to wait for the core's answer to a command before answering 503.")
    var coreTimeout = 5.0

    @Option(help: "Seconds a login token stays valid.")
    var tokenLifetime: Int64 = 24 * 3600

    @Option(help: "scrypt cost as log2 N (10-20) for new password hashes; default PANTRY_PASSWORD_COST or 15.")
    var passwordCost: Int?

    @Option(help: "The core's log service (e.g. tcp://core:5557), read instead of the log itself when set; or PANTRY_CORE_LOG.")
    var logService: String?

    @Option(help: "The access log file (one line per request), or 'off'; default access.log in the data directory, or PANTRY_ACCESS_LOG.")
    var accessLog: String?

    func validate() throws {
        guard coreTimeout > 0, coreTimeout <= 600 else { throw ValidationError("--core-timeout must be in (0, 600]") }
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be positive") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1-65535") }
        if let passwordCost, !PasswordHasher.logNRange.contains(passwordCost) {
            throw ValidationError("--password-cost must be 10-20")
        }
    }

    func run() async throws {
        bootstrapLogging()
        let environment = ProcessInfo.processInfo.environment
        let chosenPort: Int
        if let port {
            chosenPort = port
        } else if let text = environment["PANTRY_PORT"] {
            guard let value = Int(text), (1...65535).contains(value) else { throw ValidationError("PANTRY_PORT must be 1-65535") }
            chosenPort = value
        } else {
            chosenPort = 8080
        }
        let directory = try DataDirectory(options.data)
        let endpoints = try BusEndpoints(directory, environment: environment, logService: logService)
        // On the core's host the log is read directly (once the core has made it), so gaps are
        // repaired even while the core restarts; elsewhere the core's log service answers, with
        // sealed fields opened, and no key file is needed.
        let log: LogAccess
        if logService == nil && environment["PANTRY_CORE_LOG"] == nil {
            let open: @Sendable () throws -> (any EventLogReader)?
            switch try options.logLocation(directory) {
            case .sqlite(let path): open = { try SQLiteEventStore.openForReading(path: path) }
            case .postgres(let address): open = { try PostgresEventStore.openForReading(address: address) }
            }
            log = .direct(open: open, vault: try UserKeyStore(path: directory.userKeys, readOnly: true))
        } else {
            log = .service
        }
        var configuration = APIServer.Configuration(dataDirectory: directory.url, endpoints: endpoints, log: log)
        configuration.host = host
        configuration.port = chosenPort
        configuration.coreTimeout = .milliseconds(Int64(coreTimeout * 1000))
        configuration.tokenLifetimeSeconds = tokenLifetime
        configuration.tokenKey = environment["PANTRY_TOKEN_KEY"]
        if let cost = passwordCost ?? environment["PANTRY_PASSWORD_COST"].flatMap(Int.init) {
            guard PasswordHasher.logNRange.contains(cost) else { throw ValidationError("PANTRY_PASSWORD_COST must be 10-20") }
            configuration.passwordLogN = cost
        }
        // Log-ins and registrations per second (and burst) per client address and overall; a load
        // test that registers thousands of users from one address raises the first.
        for (name, keyPath) in [("PANTRY_LOGIN_RATE_PER_CLIENT", \APIServer.Configuration.loginLimitPerClient),
                                ("PANTRY_LOGIN_RATE_OVERALL", \APIServer.Configuration.loginLimitOverall)] {
            guard let text = environment[name] else { continue }
            guard let rate = Double(text), rate > 0 else { throw ValidationError("\(name) must be a positive number of requests per second") }
            configuration[keyPath: keyPath] = RateLimit(perSecond: rate, burst: max(rate * 10, 1))
        }
        for (name, keyPath) in [("PANTRY_IDLE_TIMEOUT", \APIServer.Configuration.idleTimeout),
                                ("PANTRY_HEADER_TIMEOUT", \APIServer.Configuration.headerTimeout),
                                ("PANTRY_BODY_TIMEOUT", \APIServer.Configuration.bodyTimeout)] {
            guard let text = environment[name] else { continue }
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw ValidationError("\(name) must be 0-3600 seconds") }
            configuration[keyPath: keyPath] = .milliseconds(Int64(seconds * 1000))
        }
        if let text = environment["PANTRY_RECIPE_REUSE"] {
            guard let seconds = Double(text), (0...60).contains(seconds) else { throw ValidationError("PANTRY_RECIPE_REUSE must be 0-60 seconds") }
            configuration.recipeReuse = .milliseconds(Int64(seconds * 1000))
        }
        for (name, keyPath) in [("PANTRY_MAX_CONNECTIONS", \APIServer.Configuration.maxConnections),
                                ("PANTRY_MAX_CONNECTIONS_PER_ADDRESS", \APIServer.Configuration.maxConnectionsPerAddress)] {
            guard let text = environment[name] else { continue }
            guard let count = Int(text), count > 0 else { throw ValidationError("\(name) must be a positive number") }
            configuration[keyPath: keyPath] = count
        }
        if let origins = environment["PANTRY_CORS_ORIGINS"] {
            configuration.corsOrigins = Set(origins.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty })
        }
        if let proxies = environment["PANTRY_TRUSTED_PROXIES"] {
            guard let addresses = APIServer.Configuration.proxyAddresses(proxies) else {
                throw ValidationError("PANTRY_TRUSTED_PROXIES must list IP addresses")
            }
            configuration.trustedProxies = addresses
        }
        if let assets = environment["PANTRY_DOCS_ASSETS"] { configuration.docsAssets = assets }
        switch accessLog ?? environment["PANTRY_ACCESS_LOG"] {
        case "off": configuration.accessLogPath = nil
        case let path?: configuration.accessLogPath = path
        case nil: break
        }
        try await APIServer(configuration: configuration, logger: Logger(label: "pantry.api")).run()
    }
}
