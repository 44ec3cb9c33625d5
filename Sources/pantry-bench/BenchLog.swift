import ArgumentParser
import Foundation
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys

/// Generated logs for the benchmarks: a realistic mix, mostly points, as the leaderboard load
/// produces.
enum BenchLog {
    /// `deleted`: that many users (the first) are deleted at the end, their keys destroyed.
    static func generate(at path: String, keys: UserKeyStore, events: Int, users: Int, deleted: Int = 0) throws -> SQLiteEventStore {
        let store = try SQLiteEventStore(path: path)
        // The erasure ledger beside the keys, as in a data directory.
        let ledger = ErasureLedger(path: URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(ErasureLedger.fileName).path)
        let processor = try CommandProcessor(store: store, keys: keys, erasures: ledger, paces: BenchRecipes.paces)
        fill(processor, to: events, users: users)
        _ = processor.process((0..<min(deleted, users)).map {
            CommandEnvelope(commandId: "delete-\($0)", command: .deleteUser(DeleteUser(userId: "u\($0)")))
        })
        return store
    }

    /// Appends the mix until the log holds `events` events (users and recipes first, on an empty log).
    static func fill(_ processor: CommandProcessor, to events: Int, users: Int) {
        // A cached log that is already long enough is reused as it is: the cooking steps below
        // once grew a 10,000,000-event log to 12,000,000 on a second run.
        guard processor.head < Int64(events) else { return }
        if processor.head == 0 {
            _ = processor.process((0..<users).map { n in
                CommandEnvelope(commandId: "r\(n)", command: .registerUser(RegisterUser(
                    userId: "u\(n)", username: "user\(n)", email: "user\(n)@example.org",
                    passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo")))
            })
            _ = processor.process((0..<BenchRecipes.count).map { BenchRecipes.recording($0, userId: "u0", commandId: "record-\($0)") })
        }
        // Command ids carry on from the head, so a log filled in several runs has no repeats.
        var n = Int(processor.head)
        // Every user cooks the recipes of the points to come (again, on a log filled before); the
        // refused commands make `n` pass `events` a little.
        let recipes = BenchRecipes.recipes(points: n..<max(n, events + events / 2), users: users)
        let cooking = (0..<users).flatMap { user in
            recipes.flatMap {
                BenchRecipes.cooking($0, userId: "u\(user)", commandId: "cook-\(n)-\(user)-\($0)")
            }
        }
        for start in stride(from: 0, to: cooking.count, by: 20_000) {
            _ = processor.process(Array(cooking[start..<min(start + 20_000, cooking.count)]))
        }
        n = Int(processor.head)
        while processor.head < Int64(events) {
            let batch = (0..<min(20_000, events - Int(processor.head))).map { _ -> CommandEnvelope in
                defer { n += 1 }
                let user = "u\(n % users)"
                switch n % 10 {
                case 0: return CommandEnvelope(commandId: "c\(n)", command: .adjustCart(AdjustCart(userId: user, recipeId: BenchRecipes.id(n % 50), delta: 1 + n % 3)))
                case 1: return CommandEnvelope(commandId: "c\(n)", command: .addGrocery(AddGrocery(userId: user, ingredient: "item \(n % 30)", amount: 1, unit: "g")))
                case 2: return CommandEnvelope(commandId: "c\(n)", command: .writeExperience(WriteExperience(userId: user, recipeId: "r\(n % 50)", text: "Tip \(n)")))
                case 3: return CommandEnvelope(commandId: "c\(n)", command: .saveRecipe(SaveRecipe(userId: user, recipeId: BenchRecipes.id((n / users) % BenchRecipes.count))))
                default:
                    let point = BenchRecipes.point(n, users: users)
                    return CommandEnvelope(commandId: "c\(n)", command: .useOwnedIngredient(UseOwnedIngredient(
                        userId: "u\(point.user)", recipeId: BenchRecipes.id(point.recipe), ingredient: point.ingredient)))
                }
            }
            _ = processor.process(batch)
        }
    }
}

/// Fills a data directory's log with the benchmarks' mix, up to `--events` (appending to a log
/// that holds fewer), so that `ops/bench-start` can time real processes starting on it.
struct LogBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "log")

    @Option(help: "Events the log holds afterwards.") var events = 1_000_000
    @Option(help: "Users the commands are spread over.") var users = 10_000
    @Option(help: "The data directory.") var data: String

    func run() throws {
        let directory = try DataDirectory(data)
        let processor = try CommandProcessor(store: SQLiteEventStore(path: directory.eventLog),
                                             keys: UserKeyStore(path: directory.userKeys, readOnly: false), paces: BenchRecipes.paces)
        let started = ContinuousClock.now
        let from = processor.head
        BenchLog.fill(processor, to: events, users: users)
        print("log: \(from) -> \(processor.head) events in \(fmt(seconds(ContinuousClock.now - started), 1)) s")
    }
}
