import ArgumentParser
import Curl
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
            Configured by the keys spoonacular-key (PANTRY_SPOONACULAR_KEY; without it the offline
            catalog answers), provider, spoonacular-url, spoonacular-daily-quota (150), mealdb-url,
            catalog and the others `pantry config` lists. The cache and quota live in DATA/fetch.sqlite;
            the recipes `pantry catalog import` wrote (DATA/catalog-import.json) are served beside the catalog.
            """)

    @OptionGroup var options: DataOptions

    func run() async throws {
        let config = try self.options.configuration()
        let options = try config.deployment()
        let directory = try DataDirectory(options.data)
        let endpoints = try config.endpoints(directory.url).bus
        var configuration = FetchConfiguration(databasePath: directory.url.appendingPathComponent("fetch.sqlite").path)
        try config.fetch(&configuration)
        bootstrapLogging(options.logLevel)
        let logger = Logger(label: "pantry.fetch")
        HTTPClient.mapLargeBodies()
        // A second fetch worker would unlink the first one's socket file and take its requests.
        let lock = try WriterLock(path: directory.url.appendingPathComponent("fetch.lock").path)
        defer { withExtendedLifetime(lock) {} }
        let imported = directory.url.appendingPathComponent("catalog-import.json").path
        if FileManager.default.fileExists(atPath: imported) {
            configuration.importedCatalogFile = imported
        } else if configuration.primary == .catalog {
            logger.warning("the offline catalog has only its bundled recipes: \(imported) is missing (pantry catalog import --data \(directory.url.path) makes it)")
        }
        let service = try FetchService(configuration: configuration, logger: logger)
        logger.info("fetch configured", metadata: ["provider": "\(configuration.primary)"])
        let context = try endpoints.makeContext(logger: logger)
        let server = try FetchServer(service: service, context: context,
                                     endpoint: endpoints.fetch, logger: logger)
        defer { context.shutdown() }
        await service.prepareFallback()
        try await runServices([server], logger: logger)
    }
}

