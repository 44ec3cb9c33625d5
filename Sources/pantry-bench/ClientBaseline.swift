import ArgumentParser
import Foundation
import PantryLoad

/// `pantry-bench client-baseline`: the load test's libcurl client (`PantryLoad.PantryClient`, one
/// kept-alive handle per thread) doing what `cook-bench` does through PantryClient, for
/// ops/bench-client: one thread per token, the top 10 or "I have this", each a point the user has
/// not earned yet.
/// Prints one JSON line: requests/s, p50 and p99 in ms, errors.
struct ClientBaseline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-baseline",
        abstract: "The load test's libcurl client against a deployment ops/bench_http.py prepared, for ops/bench-client.")

    @Option(help: "The API's base URL.") var url: String
    @Option(help: "A file of bench users' tokens, one a line, none of whose points earned yet.") var tokens: String
    @Option var seconds: Double = 10
    @Option(help: "top or increments.") var mode: String
    @Option(help: "The bench recipes each user is cooking.") var recipes: Int

    func run() throws {
        guard ["top", "increments"].contains(mode) else { throw ValidationError("--mode is top or increments") }
        let tokens = try String(contentsOfFile: self.tokens, encoding: .utf8).split(separator: "\n").map(String.init)
        let (url, mode, recipes, seconds) = (url, mode, recipes, seconds)
        let results = Results()
        let end = Date().addingTimeInterval(seconds)
        let threads = tokens.map { token in
            Thread {
                let client = PantryClient(baseURL: url, timeout: 30)
                var latencies: [Double] = [], errors = 0
                var slot = 0
                while Date() < end {
                    let started = DispatchTime.now().uptimeNanoseconds
                    let status: Int
                    if mode == "top" {
                        status = (try? client.top(10, token: token).status) ?? 0
                    } else {
                        let item = Item(recipeId: "bench-recipe-\(slot % recipes)", ingredient: "ingredient \(1 + (slot / recipes) % 199)")
                        status = (try? client.useIngredient(item, token: token, key: UUID().uuidString).status) ?? 0
                        slot += 1
                    }
                    if (200..<300).contains(status) {
                        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
                    } else {
                        errors += 1
                    }
                }
                results.add(latencies, errors: errors)
            }
        }
        threads.forEach { $0.start() }
        results.wait(for: threads.count)
        let (latencies, errors) = results.all
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(p / 100 * Double(sorted.count)))] }
        print(#"{"client":"libcurl","mode":"\#(mode)","requests":\#(sorted.count),"perSecond":\#(Double(sorted.count) / seconds),"p50":\#(percentile(50)),"p99":\#(percentile(99)),"errors":\#(errors)}"#)
    }
}

/// The threads' latencies, gathered.
private final class Results: @unchecked Sendable {
    private let condition = NSCondition()
    private var latencies: [Double] = []
    private var errors = 0
    private var reported = 0

    func add(_ some: [Double], errors: Int) {
        condition.lock()
        latencies += some
        self.errors += errors
        reported += 1
        condition.broadcast()
        condition.unlock()
    }

    func wait(for count: Int) {
        condition.lock()
        while reported < count { condition.wait() }
        condition.unlock()
    }

    var all: ([Double], Int) {
        condition.lock()
        defer { condition.unlock() }
        return (latencies, errors)
    }
}
