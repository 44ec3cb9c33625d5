import ArgumentParser
import Foundation
import Histogram
import PantryBus
import PantryCore
import PantryDomain
import PantryWire
import ZeroMQ

/// Commands per second through a running deployment (core and workers started by
/// `ops/bench-e2e`), from several client threads pipelining over ZeroMQ, and the latency from
/// "accepted" to "visible in the leaderboard" at half that rate.
struct EndToEndBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "e2e")

    @Option(help: "The deployment's data directory.") var data = "./data"
    @Option(help: "Client threads, each with its own DEALER socket.") var clients = 4
    @Option(help: "Commands each client keeps in flight.") var window = 512
    @Option(help: "Accepted UseOwnedIngredient commands to send in the throughput phase.") var commands = 200_000
    @Option(help: "Users the commands are spread over.") var users = 10_000
    @Option(help: "Seconds of the latency phase.") var latencySeconds = 10.0
    @Option(help: "Commands/s of background load in the latency phase (default: two phases, at half the 30,000/s target and at half the measured rate).") var latencyLoad: Double?

    func run() throws {
        let directory = URL(fileURLWithPath: data)
        let endpoints = BusEndpoints(dataDirectory: directory)
        let context = try ZMQContext()
        let run = UInt64(Date().timeIntervalSince1970 * 1000)

        let setup = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(60))
        var registrations: [CommandEnvelope] = []
        // Someone outside the measured users records the recipes, so none of theirs is spent.
        let recorder = "b\(run)recorder"
        registrations.append(CommandEnvelope(commandId: "bench-\(run)-register-recorder", command: .registerUser(RegisterUser(
            userId: recorder, username: "b\(run % 100_000)rec", email: "b\(run)recorder@example.org",
            passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"))))
        for n in 0..<users {
            registrations.append(CommandEnvelope(commandId: "bench-\(run)-register-\(n)", command: .registerUser(RegisterUser(
                userId: "b\(run)u\(n)", username: "b\(run % 100_000)u\(n)", email: "b\(run)u\(n)@example.org",
                passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"))))
        }
        for chunk in stride(from: 0, to: registrations.count, by: 2_000) {
            let outcomes = try setup.submit(Array(registrations[chunk..<min(chunk + 2_000, registrations.count)]))
            guard outcomes.allSatisfy({ $0.status == .accepted }) else { throw ValidationError("registration failed: \(outcomes.first { $0.status != .accepted }!)") }
        }
        // Points are earned only for a recipe's own ingredients: record the recipes once, so the
        // measured commands need not carry their facts.
        let recordings = (0..<BenchRecipes.count).map { BenchRecipes.recording($0, userId: recorder, commandId: "bench-\(run)-record-\($0)") }
            + (0..<2).map { phase in CommandEnvelope(commandId: "bench-\(run)-record-latency-\(phase)", command: .adjustCart(
                AdjustCart(userId: recorder, recipeId: Self.latencyRecipe(phase), delta: 1, recipe: BenchRecipes.facts(0)))) }
        guard try setup.submit(recordings).allSatisfy({ $0.status == .accepted }) else { throw ValidationError("recording the recipes failed") }
        // And a point needs its recipe cooking: every user cooks those of the throughput phase's
        // points, of each latency phase's load (its own range of 2,000,000) and its own recipe.
        let recipes = Set(BenchRecipes.recipes(points: users..<(users + commands), users: users)
            + (0..<2).flatMap { phase in
                BenchRecipes.recipes(points: (users + commands + (phase + 1) * 2_000_000)..<(users + commands + (phase + 2) * 2_000_000),
                                     users: users) }).sorted()
        let cooking = (0..<users).flatMap { n in
            recipes.flatMap { BenchRecipes.cooking($0, userId: "b\(run)u\(n)", commandId: "bench-\(run)-cook-\(n)-\($0)") }
                + (0..<2).flatMap { phase in
                    BenchRecipes.cooking(Self.latencyRecipe(phase), facts: BenchRecipes.facts(0), userId: "b\(run)u\(n)",
                                         commandId: "bench-\(run)-cook-\(n)-latency-\(phase)")
                }
        }
        for chunk in stride(from: 0, to: cooking.count, by: 2_000) {
            let outcomes = try setup.submit(Array(cooking[chunk..<min(chunk + 2_000, cooking.count)]))
            guard outcomes.allSatisfy({ $0.status == .accepted }) else { throw ValidationError("cooking failed: \(outcomes.first { $0.status != .accepted }!)") }
        }

        // Throughput: every client pipelines `window` commands, then tops up as answers arrive.
        let perClient = commands / clients
        let clock = ContinuousClock()
        let began = clock.now
        let accepted = Counter()
        let threads = (0..<clients).map { client in
            Thread {
                do {
                    let connection = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(60))
                    var next = 0
                    while next < perClient {
                        let count = min(window, perClient - next)
                        let batch = (next..<next + count).map { k in
                            let n = client * perClient + k
                            let point = BenchRecipes.point(n + users, users: users)
                            return CommandEnvelope(commandId: "bench-\(run)-use-\(n)", command: .useOwnedIngredient(UseOwnedIngredient(
                                userId: "b\(run)u\(point.user)", recipeId: BenchRecipes.id(point.recipe), ingredient: point.ingredient)))
                        }
                        accepted.add(try connection.submit(batch).filter { $0.status == .accepted }.count)
                        next += count
                    }
                } catch {
                    FileHandle.standardError.write(Data("client \(client): \(error)\n".utf8))
                }
            }
        }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(2_000) }
        let elapsed = seconds(clock.now - began)
        let rate = Double(accepted.value) / elapsed
        print("targets: >= 30000 commands/s end to end, p99 <= 5 ms at half that load")
        print("end to end     \(accepted.value) accepted UseOwnedIngredient, \(clients) clients x \(window) in flight: \(fmt(rate)) commands/s (\(fmt(elapsed, 2)) s)")
        guard accepted.value == perClient * clients else { throw ValidationError("only \(accepted.value) of \(perClient * clients) were accepted") }
        // The target reads "p99 <= 5 ms at half that load": half of the 30,000/s asked for, and,
        // stricter, half of what this run reached. Both are measured unless a load is given.
        let loads: [Double] = latencyLoad.map { [$0] } ?? [15_000, rate / 2]
        for (phase, load) in loads.enumerated() {
            try measureVisibility(context: context, endpoints: endpoints, directory: directory, run: run, phase: phase, rate: load)
        }
    }

    /// Under a background load of `rate` commands/s, how long from the core's "accepted" until the
    /// leaderboard worker answers a query that waits for that position (sampled one at a time).
    private func measureVisibility(context: ZMQContext, endpoints: BusEndpoints, directory: URL, run: UInt64, phase: Int, rate: Double) throws {
        let clock = ContinuousClock()
        let began = clock.now
        let until = began + .seconds(latencySeconds)
        let loadSent = Counter()
        let load = Thread {
            do {
                // Paced in 1 ms ticks; each tick's commands are pipelined and their answers collected.
                let connection = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(60))
                var n = 0
                while clock.now < until {
                    let due = Int(rate * seconds(clock.now - began)) - n
                    if due <= 0 { Thread.sleep(forTimeInterval: 0.001); continue }
                    let batch = (n..<n + due).map { k in
                        // Past the throughput phase's points, and each phase's own range.
                        let point = BenchRecipes.point(k + users + commands + (phase + 1) * 2_000_000, users: users)
                        return CommandEnvelope(commandId: "bench-\(run)-\(phase)-load-\(k)", command: .useOwnedIngredient(UseOwnedIngredient(
                            userId: "b\(run)u\(point.user)", recipeId: BenchRecipes.id(point.recipe), ingredient: point.ingredient)))
                    }
                    _ = try connection.submit(batch)
                    n += due
                    loadSent.add(due)
                }
            } catch {
                FileHandle.standardError.write(Data("load: \(error)\n".utf8))
            }
        }
        load.start()

        let client = try CommandClient(context: context, endpoint: endpoints.commands)
        let leaderboard = try RequestClient(context: context, endpoint: endpoints.queries(of: .leaderboard))
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var n = 0
        while clock.now < until {
            let user = "b\(run)u\(n % users)"
            // Each phase on a recipe of its own: every user's next ingredient of it.
            let ingredient = "ingredient \(n / users % RecipeFacts.maxIngredients)"
            let outcome = try client.submit(CommandEnvelope(commandId: "bench-\(run)-\(phase)-latency-\(n)", command: .useOwnedIngredient(
                UseOwnedIngredient(userId: user, recipeId: Self.latencyRecipe(phase), ingredient: ingredient))))
            let acceptedAt = clock.now
            guard outcome.status == .accepted, let position = outcome.positions?.last else { throw ValidationError("\(outcome)") }
            _ = try leaderboard.query(["query": WorkerQuery.leaderboard(.entry).name, "userId": user], after: position)
            histogram.record(UInt64((clock.now - acceptedAt) / .microseconds(1)))
            n += 1
            Thread.sleep(forTimeInterval: 0.002)
        }
        while !load.isFinished { usleep(1_000) }
        let achieved = Double(loadSent.value) / seconds(clock.now - began)
        func ms(_ q: Double) -> String { fmt(Double(histogram.valueAtPercentile(q)) / 1000, 3) }
        print("visible        under \(fmt(achieved)) commands/s of load (asked \(fmt(rate))), \(n) samples: accepted -> leaderboard p50 \(ms(50)) ms, p99 \(ms(99)) ms, max \(ms(100)) ms")

    }

    static func latencyRecipe(_ phase: Int) -> RecipeID { "bench-latency-\(phase)" }
}

/// A total shared by the client threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ n: Int) { lock.withLock { total += n } }
    var value: Int { lock.withLock { total } }
}
