import Foundation
@testable import PantryFetch
import PantryWire
import PantryTestSupport

/// A fresh directory for one test's SQLite file, in the test process's scratch directory.
func temporaryDatabasePath() throws -> String {
    let directory = URL(fileURLWithPath: scratchPath("fetch"))
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("fetch.sqlite").path
}

/// A configuration pointing both upstreams at the fake server, with a fast token bucket.
func upstreamConfiguration(_ upstream: FakeUpstream, databasePath: String, dailyQuota: Int = 150) -> FetchConfiguration {
    var config = FetchConfiguration(databasePath: databasePath)
    config.primary = .spoonacular
    config.spoonacularKey = "test-key"
    config.spoonacularURL = upstream.baseURL
    config.mealdbURL = "\(upstream.baseURL)/mealdb/api/json/v1/1"
    config.spoonacularLimits = LimiterPolicy(dailyQuota: dailyQuota, ratePerSecond: 10_000, burst: 10_000, maxWait: 5)
    // The tests' clock is the real one: a 402 is the whole day's, even just after midnight.
    config.spoonacularLimits.midnightGrace = 0
    config.mealdbLimits = LimiterPolicy(dailyQuota: nil, ratePerSecond: 10_000, burst: 10_000, maxWait: 5)
    config.requestTimeout = 2
    config.connectTimeout = 1
    // The upstream's own answers, however loaded the machine (the fallback is counted from the
    // request's arrival, and with every suite running at once on 2 cores a test waited over 60 s
    // for a thread); SlowUpstreamTests sets it back.
    config.fallbackAfter = 600
    return config
}

extension FetchResult {
    var response: FetchResponse? {
        if case .success(let response) = self { return response }
        return nil
    }

    var error: FetchError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
