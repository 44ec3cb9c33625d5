import Foundation
import PantryBounded

/// A configuration value that cannot be used; the message says which and why.
package struct FetchConfigurationError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}

package struct FetchConfiguration: Sendable {
    package enum Provider: String, Sendable, CaseIterable {
        case spoonacular, mealdb, catalog
    }

    /// SQLite file for the cache and the quota state.
    package var databasePath: String
    /// Answers search, ingredient, random and autocomplete requests; details go by id prefix.
    package var primary: Provider
    package var spoonacularURL: String
    /// Without a key Spoonacular is not used at all.
    package var spoonacularKey: String?
    package var spoonacularLimits: LimiterPolicy
    package var mealdbURL: String
    package var mealdbLimits: LimiterPolicy
    /// Another catalog file instead of the bundled one.
    package var catalogFile: String?
    /// Recipes `pantry catalog import` wrote, served beside the catalog (the fetch worker uses
    /// DATA/catalog-import.json when it exists).
    package var importedCatalogFile: String?
    package var catalogSeed: UInt64
    package var connectTimeout: Double
    package var requestTimeout: Double
    /// How long a caller whose cached answer has expired waits for the upstream before it gets the
    /// expired answer (stale-while-revalidate, RFC 5861); the call goes on and refreshes the cache.
    package var staleAfter: Double = 1.5
    package var cacheLifetimes: CacheLifetimes
    /// Upstream calls one client may cause: 5 at once, then one every 2 minutes
    /// (PANTRY_FETCH_CLIENT_BURST, PANTRY_FETCH_CLIENT_PER_HOUR).
    package var upstreamCallsPerClient = RateLimit(perSecond: 30.0 / 3600, burst: 5)
    /// Upstream calls every client together may cause (PANTRY_FETCH_OVERALL_PER_HOUR, its burst a
    /// tenth of an hour's); nil: a twelfth of the day's quota an hour (a burst of a tenth of it,
    /// 10 at least),
    /// so clients that each keep within their share (60 addresses made 300 calls; about 30 spend
    /// Spoonacular's free 150 points) cannot spend the whole day's quota in less than half a day.
    /// Without a daily quota (TheMealDB, the catalog) none.
    package var upstreamCallsOverall: RateLimit?

    /// The overall budget in force: as configured, or derived from the primary provider's quota.
    package var overallUpstreamBudget: RateLimit? {
        if let upstreamCallsOverall { return upstreamCallsOverall }
        guard primary == .spoonacular, let quota = spoonacularLimits.dailyQuota, quota > 0 else { return nil }
        return RateLimit(perSecond: Double(quota) / 12 / 3600, burst: max(10, Double(quota) / 10))
    }
    /// Hosts an `image` request may fetch from; the upstreams' own hosts are always allowed.
    package var imageHosts: Set<String>

    package init(databasePath: String) {
        self.databasePath = databasePath
        primary = .catalog
        spoonacularURL = "https://api.spoonacular.com"
        spoonacularKey = nil
        // The free plan: about 1 request/s, 2 at once; the seed's key had 150 points a day. The
        // waits fit inside the API's 20 s for a recipe request: 3 s for a turn, 10 s for the answer.
        spoonacularLimits = LimiterPolicy(dailyQuota: 150, ratePerSecond: 1, burst: 2, maxWait: 3, maxConcurrent: 2)
        mealdbURL = "https://www.themealdb.com/api/json/v1/1"
        mealdbLimits = LimiterPolicy(dailyQuota: nil, ratePerSecond: 2, burst: 4, maxWait: 5)
        catalogFile = nil
        importedCatalogFile = nil
        catalogSeed = UInt64.random(in: .min ... .max)
        connectTimeout = 5
        requestTimeout = 10
        cacheLifetimes = CacheLifetimes()
        imageHosts = ["img.spoonacular.com", "spoonacular.com", "www.themealdb.com"]
    }

    /// Reads the PANTRY_* settings the executable was given; an unparsable value is an error, never a silent default.
    ///
    /// `databasePath` defaults to PANTRY_FETCH_DB, else "data/fetch.sqlite". PANTRY_SPOONACULAR_KEY, PANTRY_SPOONACULAR_URL, PANTRY_SPOONACULAR_DAILY_QUOTA (150),
    /// PANTRY_SPOONACULAR_RATE (1/s), PANTRY_SPOONACULAR_BURST (2), PANTRY_MEALDB_URL,
    /// PANTRY_PROVIDER (spoonacular | mealdb | catalog; default spoonacular with a key, else
    /// catalog), PANTRY_CATALOG (file), PANTRY_CATALOG_SEED, PANTRY_FETCH_TIMEOUT (seconds).
    package static func fromEnvironment(
        databasePath: String? = nil, environment: [String: String]
    ) throws(FetchConfigurationError) -> FetchConfiguration {
        func value(_ name: String) -> String? { nonEmpty(environment[name]) }
        var config = FetchConfiguration(databasePath: databasePath ?? value("PANTRY_FETCH_DB") ?? "data/fetch.sqlite")
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ range: ClosedRange<T>) throws(FetchConfigurationError) -> T? {
            guard let text = value(name) else { return nil }
            guard let parsed = T(text), range.contains(parsed) else {
                throw FetchConfigurationError("\(name)=\(text) is not a number in \(range)")
            }
            return parsed
        }
        func url(_ name: String) throws(FetchConfigurationError) -> String? {
            guard let text = value(name) else { return nil }
            guard let components = URLComponents(string: text), ["http", "https"].contains(components.scheme ?? ""),
                  components.host?.isEmpty == false
            else { throw FetchConfigurationError("\(name)=\(text) is not an http(s) URL") }
            return text
        }

        config.spoonacularKey = value("PANTRY_SPOONACULAR_KEY")
        config.spoonacularURL = try url("PANTRY_SPOONACULAR_URL") ?? config.spoonacularURL
        config.mealdbURL = try url("PANTRY_MEALDB_URL") ?? config.mealdbURL
        if let quota: Int = try number("PANTRY_SPOONACULAR_DAILY_QUOTA", 0...1_000_000) { config.spoonacularLimits.dailyQuota = quota }
        if let rate: Double = try number("PANTRY_SPOONACULAR_RATE", 0.001...1000) { config.spoonacularLimits.ratePerSecond = rate }
        if let burst: Double = try number("PANTRY_SPOONACULAR_BURST", 1...1000) { config.spoonacularLimits.burst = burst }
        if let calls: Int = try number("PANTRY_SPOONACULAR_CONCURRENCY", 1...100) { config.spoonacularLimits.maxConcurrent = calls }
        if let burst: Double = try number("PANTRY_FETCH_CLIENT_BURST", 1...1_000_000) { config.upstreamCallsPerClient.burst = burst }
        if let perHour: Double = try number("PANTRY_FETCH_CLIENT_PER_HOUR", 1...1_000_000_000) {
            config.upstreamCallsPerClient.perSecond = perHour / 3600
        }
        if let perHour: Double = try number("PANTRY_FETCH_OVERALL_PER_HOUR", 1...1_000_000_000) {
            config.upstreamCallsOverall = RateLimit(perSecond: perHour / 3600, burst: max(1, perHour / 10))
        }
        if let timeout: Double = try number("PANTRY_FETCH_TIMEOUT", 0.1...300) { config.requestTimeout = timeout }
        if let seconds: Double = try number("PANTRY_FETCH_STALE_AFTER", 0...60) { config.staleAfter = seconds }
        if let seed: UInt64 = try number("PANTRY_CATALOG_SEED", 0...UInt64.max) { config.catalogSeed = seed }
        config.catalogFile = value("PANTRY_CATALOG")

        if let name = value("PANTRY_PROVIDER") {
            guard let provider = Provider(rawValue: name.lowercased()) else {
                throw FetchConfigurationError("PANTRY_PROVIDER=\(name) is not one of spoonacular, mealdb, catalog")
            }
            config.primary = provider
        } else {
            config.primary = config.spoonacularKey == nil ? .catalog : .spoonacular
        }
        if config.primary == .spoonacular, config.spoonacularKey == nil {
            throw FetchConfigurationError("PANTRY_PROVIDER=spoonacular needs PANTRY_SPOONACULAR_KEY")
        }
        return config
    }
}
