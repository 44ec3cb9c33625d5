import Foundation
import PantryBounded

/// A catalog that cannot be served; the message says which and why.
package struct FetchConfigurationError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// How the fetch worker runs: the defaults here, the values the executable read from its
/// configuration (flags, `PANTRY_*`, a file) set over them. Nothing here reads the environment.
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
    /// How long a caller with nothing cached waits for the upstream before it gets what the
    /// catalog and the recipes already fetched hold (when they hold anything), marked `fallback`.
    package var fallbackAfter: Double = 1
    package var cacheLifetimes: CacheLifetimes
    /// Upstream calls one client may cause: 5 at once, then one every 2 minutes (the executable's
    /// `fetch-client-burst` and `fetch-client-per-hour` keys).
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
}
