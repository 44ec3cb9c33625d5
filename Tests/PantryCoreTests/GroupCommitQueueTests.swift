import Foundation
import PantryCore
import PantryDomain
import PantryEventStore
import Testing

@Suite struct GroupCommitQueueTests {
    /// Each submitter is one user: registers, then works on its own recipes; every 5th command is refused.
    static func script(for submitter: Int) -> [(CommandEnvelope, CommandOutcome.Status)] {
        let user = "u\(submitter)"
        var script: [(CommandEnvelope, CommandOutcome.Status)] = [(envelope("\(user)-0", register(user)), .accepted)]
        for step in 1..<20 {
            let id = "\(user)-\(step)"
            switch step % 5 {
            case 0: script.append((envelope(id, save(user, "r\(step - 4)")), .rejected)) // saved at step - 4
            case 1: script.append((envelope(id, save(user, "r\(step)")), .accepted))
            case 2: script.append((envelope(id, cart(user, "r1", 1)), .accepted))
            case 3: script.append((envelope(id, use(user, "r\(step)", "Salt")), .accepted))
            default: script.append((envelope(id, addGrocery(user, "Flour")), .accepted))
            }
        }
        return script
    }

    @Test(.timeLimit(.minutes(2)))
    func concurrentSubmittersShareCommits() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let queue = GroupCommitQueue(processor: try openProcessor(path))
            let submitters = 200, perSubmitter = 20
            let results = await withTaskGroup(of: [(CommandEnvelope, CommandOutcome.Status, CommandOutcome)].self) { group in
                for s in 0..<submitters {
                    group.addTask {
                        var results: [(CommandEnvelope, CommandOutcome.Status, CommandOutcome)] = []
                        for (command, expected) in Self.script(for: s) {
                            results.append((command, expected, await queue.submit(command)))
                        }
                        return results
                    }
                }
                var all: [(CommandEnvelope, CommandOutcome.Status, CommandOutcome)] = []
                for await results in group { all += results }
                return all
            }
            queue.shutdown()

            #expect(results.count == submitters * perSubmitter)
            for (command, expected, outcome) in results {
                #expect(outcome.commandId == command.commandId)
                #expect(outcome.status == expected, "\(command.commandId): \(outcome)")
                #expect(outcome.duplicate == nil)
            }
            // A command that is first about a recipe also records the recipe's facts: r1..r19 per user.
            let positions = results.flatMap { $0.2.positions ?? [] }
            let accepted = results.filter { $0.1 == .accepted }.count
            let recorded = Set(results.flatMap { result -> [String] in
                switch result.0.command {
                case .saveRecipe(let c): [c.recipeId]
                case .adjustCart(let c): [c.recipeId]
                case .useOwnedIngredient(let c): [c.recipeId]
                default: []
                }
            }).count
            #expect(positions.count == accepted + recorded)
            #expect(positions.sorted() == Array(1...Int64(accepted + recorded)))
            #expect(queue.committedCommands == submitters * perSubmitter)
            #expect(queue.committedBatches < submitters * perSubmitter)
            #expect(queue.committedBatches > 0)

            let store = try SQLiteEventStore(path: path, readOnly: true)
            #expect(try store.headPosition() == Int64(accepted + recorded))
            let log = try store.read(after: 0, limit: 100_000)
            for (command, _, outcome) in results where outcome.status == .accepted {
                let recorded = log[Int(outcome.positions![0]) - 1]
                #expect(recorded.metadata.commandId == command.commandId)
            }
            for s in [0, 99, 199] {
                // 17 accepted commands, and the facts of the recipes this user was first to use.
                let versions = try store.readStream("user-u\(s)").map(\.streamVersion)
                #expect(versions == Array(1...Int64(versions.count)) && versions.count >= 17)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func shutdownAnswersWaitingSubmitters() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let queue = GroupCommitQueue(processor: try openProcessor(path), maxBatch: 7)
            let count = 500
            let everything: [CommandOutcome] = await withTaskGroup(of: CommandOutcome.self) { group in
                for i in 0..<count {
                    group.addTask { await queue.submit(envelope("c\(i)", register("u\(i)"))) }
                }
                group.addTask {
                    queue.shutdown()
                    return CommandOutcome.failed(CommandID("shutdown"), "marker")
                }
                var all: [CommandOutcome] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            let outcomes: [CommandOutcome] = everything.filter { outcome in outcome.message != "marker" }

            #expect(outcomes.count == count)
            let accepted = outcomes.filter { $0.status == .accepted }
            let refused = outcomes.filter { $0.status == .failed }
            #expect(accepted.count + refused.count == count)
            #expect(refused.allSatisfy { $0.message?.contains("shutting down") == true })
            #expect(accepted.flatMap { $0.positions ?? [] }.sorted() == Array(1...Int64(accepted.count)))
            #expect(queue.committedCommands == accepted.count)

            // After shutdown, a submitter is answered at once.
            let late = await queue.submit(envelope("late", register("late")))
            #expect(late.status == .failed)
            #expect(late.commandId == "late")
            let store = try SQLiteEventStore(path: path, readOnly: true)
            #expect(try store.headPosition() == Int64(accepted.count))
        }
    }
}
