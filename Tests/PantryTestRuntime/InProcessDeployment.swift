import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import PantryAPI
import PantryHTTP
import PantryBus
import PantryCore
import PantryEventStore
import PantryFetch
import PantryFetchServer
import PantryKeys
import PantryLog
import PantryProjections
import PantryTestSupport
import PantryWire
import PantryWorkers
import Prometheus
import ServiceLifecycle
import ZeroMQ

/// A whole deployment in the test's process, with real parts: the core on a SQLite log in a
/// temporary directory, every projection worker, the fetch worker on the offline catalog, each
/// over its ZeroMQ `ipc://` socket in that directory as `pantry` processes talk, and the real API
/// (`APIParts`, `buildRouter`, the server of `buildApplication`) on a free port, driven
/// through HummingbirdTesting. What needs processes (a kill, a restart, their logs) stays in pytest.
package struct InProcessDeployment: Sendable {
    package let directory: DataDirectory
    /// The process's metrics, which `/metrics` renders: every deployment of the test process
    /// counts into the one registry the metrics system is bootstrapped with.
    package static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// The log as the core wrote it so far (personal fields sealed, as stored).
    package func events() throws -> [RecordedEvent] {
        guard let log = try SQLiteEventStore.openForReading(path: directory.eventLog) else { return [] }
        return try log.read(after: 0, limit: Int.max)
    }

    /// Runs `body` against a deployment made for it in a new temporary directory, removed after.
    /// `configure` changes the API's settings (the password cost is lowered to 10, and the log-in
    /// limits raised, as pytest's deployments have them). `ports` may put a port of the test's own
    /// before a real one, for an answer the real parts give only in a state this process cannot
    /// reach (the log's server away). `alone`: no other deployment of the process runs meanwhile,
    /// for a test that compares the shared metrics' counts.
    package static func run<Value: Sendable>(
        alone: Bool = false,
        configure: (inout APIServer.Configuration) -> Void = { _ in },
        ports: (HTTPPorts) -> HTTPPorts = { $0 },
        _ body: @Sendable (any TestClientProtocol, InProcessDeployment) async throws -> Value
    ) async throws -> Value {
        await DeploymentGate.shared.enter(alone: alone)
        do {
            let value = try await deploy(configure: configure, ports: ports, body)
            await DeploymentGate.shared.leave(alone: alone)
            return value
        } catch {
            await DeploymentGate.shared.leave(alone: alone)
            throw error
        }
    }

    private static func deploy<Value: Sendable>(
        configure: (inout APIServer.Configuration) -> Void,
        ports: (HTTPPorts) -> HTTPPorts,
        _ body: @Sendable (any TestClientProtocol, InProcessDeployment) async throws -> Value
    ) async throws -> Value {
        _ = registry
        // ipc:// paths are at most 107 bytes: a short directory of its own under /tmp.
        let url = URL(fileURLWithPath: "/tmp/pantry-rt-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        let directory = try DataDirectory(url.path)
        let endpoints = BusEndpoints(dataDirectory: url)
        var logger = Logger(label: "pantry.test")
        logger.logLevel = .error
        let context = try endpoints.makeContext(logger: logger)
        defer { context.shutdown() }

        // The core: the writer on the log, its command socket and feed, and the log service.
        let store = try SQLiteEventStore(path: directory.eventLog)
        let processor = try CommandProcessor(store: store, keys: UserKeyStore(path: directory.userKeys, readOnly: false),
                                             erasures: ErasureLedger(path: directory.erasures), logger: logger)
        guard let serviceLog = try SQLiteEventStore.openForReading(path: directory.eventLog) else {
            throw DeploymentError("the core made no log at \(directory.eventLog)")
        }
        let logServer = try LogServer(log: serviceLog, vault: UserKeyStore(path: directory.userKeys, readOnly: true),
                                      context: context, endpoint: endpoints.log, snapshots: directory.snapshots, logger: logger)
        let core = try CoreServer(processor: processor, context: context, configuration: .init(endpoints: endpoints), logger: logger)
        var services: [any Service] = [logServer, core]

        // Every projection worker, reading the log itself as on the core's host.
        try FileManager.default.createDirectory(at: directory.projections, withIntermediateDirectories: true)
        for name in WorkerName.allCases {
            guard let log = try SQLiteEventStore.openForReading(path: directory.eventLog) else {
                throw DeploymentError("no log for the \(name) worker")
            }
            let store = try ProjectionStore.open(name: name.rawValue, directory: directory.projections,
                                                 keys: UserKeyStore(path: directory.userKeys, readOnly: true), logger: logger)
            services.append(try ProjectionWorker(store: store, log: log, context: context, feed: endpoints.events,
                                                 queryEndpoint: endpoints.queries(of: name), logger: logger))
        }

        // The fetch worker on the offline catalog.
        let fetch = try FetchService(configuration: FetchConfiguration(databasePath: url.appendingPathComponent("fetch.sqlite").path),
                                     logger: logger)
        await fetch.prepareFallback()
        services.append(try FetchServer(service: fetch, context: context, endpoint: endpoints.fetch, logger: logger))

        // The API's parts, reading the log directly as on the core's host.
        var configuration = APIServer.Configuration(dataDirectory: url, endpoints: endpoints, log: .direct(
            open: { try SQLiteEventStore.openForReading(path: directory.eventLog) },
            vault: try UserKeyStore(path: directory.userKeys, readOnly: true)))
        configuration.port = 0
        configuration.passwordLogN = 10
        configuration.loginLimitPerClient = .init(perSecond: 10_000, burst: 10_000)
        configuration.loginLimitOverall = .init(perSecond: 10_000, burst: 10_000)
        configuration.snapshotPath = nil
        configure(&configuration)
        let parts = try await APIParts(configuration: configuration, logger: logger)
        services += parts.servicesBeforeServer + parts.servicesAfterServer
        let router = buildRouter(ports(parts.ports), state: parts.state, settings: configuration.http, registry: registry, logger: logger)
        let app = buildApplication(router: router, settings: configuration.http, logger: logger)

        let deployment = InProcessDeployment(directory: directory)
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            do {
                let value = try await app.test(.live) { client in
                    try await waitForReady(client)
                    return try await body(client, deployment)
                }
                await group.triggerGracefulShutdown()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// `/ready` says 200 once the core's feed and every worker answer.
    private static func waitForReady(_ client: some TestClientProtocol) async throws {
        // The workers and the feed tell the API, not the test, when they are up: /ready is asked.
        guard try await waitUntil(timeout: .seconds(30), interval: .milliseconds(20), {
            try await client.execute(uri: "/ready", method: .get).status == .ok
        }) else { throw DeploymentError("the in-process deployment was not ready within 30 s") }
    }
}

package struct DeploymentError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
