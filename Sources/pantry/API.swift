import ArgumentParser
import Foundation
import Logging
import Metrics
import PantryAPI
import PantryHTTP
import PantryBus
import PantryCore
import PantryFetch
import PantryPostgresLog
import PantryBounded
import PantryLog
import PantryKeys
import PantryEventStore
import PantryMail
import Prometheus

struct API: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Run the HTTP API: accounts, sessions and the command endpoints, talking to the core over ZeroMQ.")

    @OptionGroup var options: DataOptions

    @Option(help: "The port to listen on; default PANTRY_PORT or 8080.")
    var port: Int?

    @Option(help: "The address to listen on; default PANTRY_HOST or 127.0.0.1.")
    var host: String?

    @Option(help: "Seconds to wait for the core's answer to a command before answering 503; default PANTRY_CORE_TIMEOUT or 5.")
    var coreTimeout: Double?

    @Option(help: "Seconds a login token stays valid; default PANTRY_TOKEN_LIFETIME or 86400.")
    var tokenLifetime: Int64?

    @Option(help: "scrypt cost as log2 N (10-20) for new password hashes; default PANTRY_PASSWORD_COST or 15.")
    var passwordCost: Int?

    @Option(name: [.customLong("core-log"), .customLong("log-service")],
            help: "The core's log service (e.g. tcp://core:5557), read instead of the log itself when set; or PANTRY_CORE_LOG.")
    var logService: String?

    @Option(help: "The access log file (one line per request), or 'off'; default access.log in the data directory, or PANTRY_ACCESS_LOG.")
    var accessLog: String?

    func run() async throws {
        let config = try self.options.configuration([
            "port": port, "host": host, "core-timeout": coreTimeout, "token-lifetime": tokenLifetime,
            "password-cost": passwordCost, "core-log": logService, "access-log": accessLog,
        ])
        let options = try config.deployment()
        let directory = try DataDirectory(options.data)
        let (endpoints, remote) = try config.endpoints(directory.url)
        var configuration = APIServer.Configuration(dataDirectory: directory.url, endpoints: endpoints, log: .service)
        try config.api(&configuration)
        let mail = try config.mail(host: configuration.host, port: configuration.port)
        bootstrapLogging(options.logLevel)
        if let mail {
            // The outbox beside the API's other files: what is queued survives a restart.
            let outbox = try MailOutbox(path: directory.url.appendingPathComponent("mail-outbox.sqlite").path)
            let sender = MailSender(outbox: outbox, settings: MailSender.Settings(smtpURL: mail.smtpURL, from: mail.from),
                                    logger: Logger(label: "pantry.mail"))
            configuration.passwordResetMail = PasswordResetMail(post: sender, publicURL: mail.publicURL, services: [sender])
        }
        // On the core's host the log is read directly (once the core has made it), so gaps are
        // repaired even while the core restarts; elsewhere the core's log service answers, with
        // sealed fields opened, and no key file is needed.
        if !remote {
            let open: @Sendable () throws -> (any EventLogReader)?
            switch try options.logLocation(directory) {
            case .sqlite(let path): open = { try SQLiteEventStore.openForReading(path: path) }
            case .postgres(let address):
                let timeout = options.logTimeout
                open = { try PostgresEventStore.openForReading(address: address, timeout: timeout) }
            }
            configuration.log = .direct(open: open, vault: try UserKeyStore(path: directory.userKeys, readOnly: true))
        }
        // The process's metrics: bootstrapped here, once, for the library's counters and `/metrics`.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        try await APIServer(configuration: configuration, registry: registry, logger: Logger(label: "pantry.api")).run()
    }
}
