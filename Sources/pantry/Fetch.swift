import ArgumentParser
import Foundation
import Logging
import PantryBus
import PantryCore
import PantryEventStore
import PantryFetch
import PantryFetchServer
import ServiceLifecycle
import ZeroMQ

struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the fetch worker: recipe data from the upstream APIs or the offline catalog, rate-limited and cached.",
        discussion: """
            Configured by the environment: PANTRY_SPOONACULAR_KEY (without it the offline catalog
            answers), PANTRY_SPOONACULAR_URL, PANTRY_SPOONACULAR_DAILY_QUOTA (150), PANTRY_MEALDB_URL,
            PANTRY_PROVIDER, PANTRY_CATALOG. The cache and quota live in DATA/fetch.sqlite; the recipes
            `pantry catalog import` wrote (DATA/catalog-import.json) are served beside the catalog.
            """)

    @OptionGroup var options: DataOptions

    func run() async throws {
        bootstrapLogging()
        let logger = Logger(label: "pantry.fetch")
        let directory = try DataDirectory(options.data)
        // A second fetch worker would unlink the first one's socket file and take its requests.
        let lock = try WriterLock(path: directory.url.appendingPathComponent("fetch.lock").path)
        defer { withExtendedLifetime(lock) {} }
        let environment = ProcessInfo.processInfo.environment
        var configuration = try FetchConfiguration.fromEnvironment(
            databasePath: directory.url.appendingPathComponent("fetch.sqlite").path, environment: environment)
        let imported = directory.url.appendingPathComponent("catalog-import.json").path
        if FileManager.default.fileExists(atPath: imported) { configuration.importedCatalogFile = imported }
        let service = try FetchService(configuration: configuration, logger: logger)
        logger.info("fetch configured", metadata: ["provider": "\(configuration.primary)"])
        let context = try ZMQContext()
        let server = try FetchServer(service: service, context: context,
                                     endpoint: BusEndpoints(directory, environment: environment).fetch, logger: logger)
        defer { context.shutdown() }
        try await runServices([server], logger: logger)
    }
}
