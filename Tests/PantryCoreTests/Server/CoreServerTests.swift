import Foundation
import Logging
import PantryBus
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing
import ZeroMQ
import PantryWire

/// `CoreServer`, the batching that serves traffic, driven in process over real ZeroMQ sockets.
@Suite struct CoreServerTests {
    static let hash = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"
    static let facts = RecipeFacts(title: "Recipe", image: nil, ingredients: ["salt", "flour", "eggs", "milk"])

    /// Each client is one user: registers, then works on its own recipes; every 5th command is refused.
    static func script(for client: Int) -> [(CommandEnvelope, CommandOutcome.Status)] {
        let user = "u\(client)"
        var script: [(CommandEnvelope, CommandOutcome.Status)] = [(CommandEnvelope(commandId: "\(user)-0", command: .registerUser(
            RegisterUser(userId: user, username: "user_\(user)", email: "\(user)@example.org", passwordHash: hash))), .accepted)]
        for step in 1..<20 {
            let id = "\(user)-\(step)"
            let command: Command
            let expected: CommandOutcome.Status
            switch step % 5 {
            case 0: (command, expected) = (.saveRecipe(SaveRecipe(userId: user, recipeId: "\(user)-r\(step - 4)", recipe: facts)), .rejected)
            case 1: (command, expected) = (.saveRecipe(SaveRecipe(userId: user, recipeId: "\(user)-r\(step)", recipe: facts)), .accepted)
            case 2: (command, expected) = (.adjustCart(AdjustCart(userId: user, recipeId: "\(user)-r1", delta: 1, recipe: facts)), .accepted)
            case 3: (command, expected) = (.startCooking(StartCooking(userId: user, recipeId: "\(user)-r1", minutes: 30)), .accepted)
            // Each round a new ingredient of the recipe cooking.
            default: (command, expected) = (.useOwnedIngredient(UseOwnedIngredient(userId: user, recipeId: "\(user)-r1",
                                                                                    ingredient: facts.ingredients[step / 5])), .accepted)
            }
            script.append((CommandEnvelope(commandId: id, command: command), expected))
        }
        return script
    }

    @Test(.timeLimit(.minutes(2)))
    func concurrentClientsShareBatchesAndEachGetsItsOwnAnswers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("events.sqlite").path
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let processor = try CommandProcessor(store: SQLiteEventStore(path: log), keys: UserKeyStore(path: log + ".keys", readOnly: false),
                                             logger: quiet)
        let context = try ZMQContext()
        let endpoints = BusEndpoints(dataDirectory: directory)
        let store = processor.store
        // The processor belongs to the server's thread; this one reads only its atomic batch counts.
        let server = try CoreServer(processor: processor, context: context,
                                    configuration: .init(endpoints: endpoints), logger: quiet)
        let counts = server.batchCounts
        // Started before the first suspension, and not waited for at the end: this test blocks its
        // thread, which may be the last of the pool the task would need.
        let serving = Task.immediate { try await server.run() }
        defer {
            serving.cancel()
            context.shutdown()
        }

        let clients = 24
        let results = Results()
        let finished = DispatchGroup()
        let threads = (0..<clients).map { client in
            finished.enter()
            return Thread {
                defer { finished.leave() }
                do {
                    let connection = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(30))
                    let script = Self.script(for: client)
                    // Pipelined in two windows, as a busy client sends them.
                    for window in [script[..<10], script[10...]] {
                        let outcomes = try connection.submit(window.map(\.0))
                        results.append(zip(window, outcomes).map { ($0.0, $0.1, $1) })
                    }
                } catch {
                    results.fail("client \(client): \(error)")
                }
            }
        }
        threads.forEach { $0.start() }
        finished.wait()

        #expect(results.failures.isEmpty, "\(results.failures)")
        let all = results.all
        #expect(all.count == clients * 20)
        for (command, expected, outcome) in all {
            #expect(outcome.commandId == command.commandId)
            #expect(outcome.status == expected, "\(command.commandId): \(outcome)")
        }
        // Every accepted command's positions, with the recipes each one recorded first, fill the log densely.
        let positions = all.flatMap { $0.2.positions ?? [] }.sorted()
        #expect(positions == Array(1...Int64(positions.count)))
        #expect(try store.headPosition() == Int64(positions.count))
        #expect(counts.commands.load(ordering: .relaxed) == clients * 20)
        #expect(counts.batches.load(ordering: .relaxed) < clients * 20, "concurrent commands shared batches")
    }
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [(CommandEnvelope, CommandOutcome.Status, CommandOutcome)] = []
    private var errors: [String] = []

    func append(_ more: [(CommandEnvelope, CommandOutcome.Status, CommandOutcome)]) { lock.withLock { collected += more } }
    func fail(_ message: String) { lock.withLock { errors.append(message) } }
    var all: [(CommandEnvelope, CommandOutcome.Status, CommandOutcome)] { lock.withLock { collected } }
    var failures: [String] { lock.withLock { errors } }
}
