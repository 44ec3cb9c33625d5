// cook-bench: what PantryClient costs an app, for ops/bench-client (also built as
// Examples/cook-bench-ahc, with AsyncHTTPClient's transport). USERS users from benchFIRST on
// (password "bench password", each with the bench's recipes cooking, as ops/bench_http.py prepares
// them) sign in; then for SECONDS, one task per user sends MODE (`top`: the top 10; `increments`:
// "I have this", each a point the user has not earned yet). Prints one JSON line: requests/s, p50
// and p99 in ms, errors.
import Foundation
import PantryClient
#if canImport(OpenAPIAsyncHTTPClient)
// Built as Examples/cook-bench-ahc: the requests go through AsyncHTTPClient, not URLSession.
import AsyncHTTPClient
import OpenAPIAsyncHTTPClient

let clientName = "PantryClient+AHC"
func configuration(_ url: URL) -> PantryClient.Configuration {
    .init(baseURL: url, readYourWrites: false, transport: AsyncHTTPClientTransport(configuration: .init(client: .shared)))
}
#else
let clientName = "PantryClient"
func configuration(_ url: URL) -> PantryClient.Configuration { .init(baseURL: url, readYourWrites: false) }
#endif

let arguments = CommandLine.arguments
guard arguments.count == 7, let url = URL(string: arguments[1]), let users = Int(arguments[2]), let seconds = Double(arguments[3]),
      ["top", "increments"].contains(arguments[4]), let first = Int(arguments[5]), let recipes = Int(arguments[6]) else {
    FileHandle.standardError.write(Data("usage: cook-bench URL USERS SECONDS top|increments FIRST RECIPES\n".utf8))
    exit(2)
}
let mode = arguments[4]
let ingredients = 200  // per bench recipe, as ops/bench_http.py records them

var clients: [PantryClient] = []
for n in first..<(first + users) {
    // The reads wait for nothing: each measures the route, not the wait for a client's own write.
    let client = PantryClient(configuration(url))
    do {
        try await client.signIn(username: "bench\(n)", password: "bench password")
    } catch {
        FileHandle.standardError.write(Data("cook-bench: bench\(n) could not sign in: \(error)\n".utf8))
        exit(1)
    }
    clients.append(client)
}

let clock = ContinuousClock()
let end = clock.now + .seconds(seconds)
let perTask = await withTaskGroup(of: (latencies: [Double], errors: Int).self) { group in
    for (n, client) in clients.enumerated() {
        group.addTask {
            var latencies: [Double] = [], errors = 0
            var slot = 0
            while clock.now < end {
                let started = clock.now
                do {
                    if mode == "top" {
                        _ = try await client.leaderboard(top: 10)
                    } else {
                        let recipe = slot % recipes, ingredient = 1 + (slot / recipes) % (ingredients - 1)
                        try await client.send(.useOwnedIngredient(recipeId: "bench-recipe-\(recipe)", ingredient: "ingredient \(ingredient)"))
                        slot += 1
                    }
                    let took = clock.now - started
                    latencies.append(Double(took.components.seconds) * 1e3 + Double(took.components.attoseconds) / 1e15)
                } catch {
                    errors += 1
                    if errors == 1 { FileHandle.standardError.write(Data("cook-bench: bench\(n): \(error)\n".utf8)) }
                }
            }
            return (latencies, errors)
        }
    }
    var all: [(latencies: [Double], errors: Int)] = []
    for await result in group { all.append(result) }
    return all
}
let latencies = perTask.flatMap(\.latencies).sorted()
func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(p / 100 * Double(latencies.count)))] }
let line = #"{"client":"\#(clientName)","mode":"\#(mode)","requests":\#(latencies.count),"perSecond":\#(Double(latencies.count) / seconds),"p50":\#(percentile(50)),"p99":\#(percentile(99)),"errors":\#(perTask.reduce(0) { $0 + $1.errors })}"#
print(line)
