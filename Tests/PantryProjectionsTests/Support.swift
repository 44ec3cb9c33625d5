import Foundation
import GRDB
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing
@testable import PantryProjections
import PantryWire
import PantryLog

/// A real event log in a temp directory, written through the real `CommandProcessor`.
final class History {
    let directory: URL
    let log: SQLiteEventStore
    let keys: UserKeyStore
    let processor: CommandProcessor
    private var counter = 0
    /// A fake clock: every `run` is one second later, so `recordedAt` differs between runs; a test
    /// may move it on further.
    var clock = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pantry-projections-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
        keys = try UserKeyStore(path: directory.appendingPathComponent("user-keys.sqlite").path, readOnly: false)
        processor = try CommandProcessor(store: log, keys: keys)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Runs one command, which must be accepted.
    func run(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) {
        let outcome = runAll([command])[0]
        #expect(outcome.status == .accepted, "\(command) → \(outcome)", sourceLocation: sourceLocation)
    }

    /// Runs commands as one group-committed batch; rejections are allowed. A point is earned as a
    /// client earns it, while its recipe cooks: each `UseOwnedIngredient` goes between a cart
    /// line added with a started timer and its removal, so the carts end as the commands say.
    @discardableResult
    func runAll(_ commands: [Command]) -> [CommandOutcome] {
        var envelopes: [CommandEnvelope] = []
        var asked: [Int] = []
        for command in commands {
            if case .useOwnedIngredient(let c) = command {
                envelopes += [.adjustCart(AdjustCart(userId: c.userId, recipeId: c.recipeId, delta: 1, recipe: c.recipe)),
                              .startCooking(StartCooking(userId: c.userId, recipeId: c.recipeId, minutes: 30))].map(envelope)
                asked.append(envelopes.count)
                envelopes.append(envelope(command))
                envelopes.append(envelope(.adjustCart(AdjustCart(userId: c.userId, recipeId: c.recipeId, delta: -1))))
            } else {
                asked.append(envelopes.count)
                envelopes.append(envelope(command))
            }
        }
        clock += 1
        let outcomes = processor.process(envelopes, now: clock)
        return asked.map { outcomes[$0] }
    }

    private func envelope(_ command: Command) -> CommandEnvelope {
        counter += 1
        return CommandEnvelope(commandId: "cmd-\(counter)", command: command)
    }

    var lastCommandId: String { "cmd-\(counter)" }
    var clockMillis: Int64 { Int64(clock.timeIntervalSince1970 * 1000) }

    func register(_ userId: String, _ username: String) {
        run(.registerUser(RegisterUser(userId: userId, username: username, email: "\(username)@example.org",
                                       passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2g")))
    }

    func events() throws -> [RecordedEvent] { try log.read(after: 0, limit: Int.max) }

    /// The facts of a made-up recipe, sent with the commands that may be the first about it.
    static func facts(_ title: String, image: String? = nil) -> RecipeFacts {
        RecipeFacts(title: title, image: image,
                    ingredients: ["Flour", "Salt", "Olive Oil", "Eggs", "Butter", "Sugar", "Milk", "Basil", "Garlic", "pepper"]
                        + (0..<20).map { "ingredient\($0)" })
    }

    func store(_ projection: any Projection, _ suffix: String = "") throws -> ProjectionStore {
        let dir = directory.appendingPathComponent("projections\(suffix)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return try ProjectionStore(projection: projection, path: dir.appendingPathComponent("\(projection.name).sqlite").path,
                                   keys: keys)
    }

    /// A store of `projection` caught up with the whole log.
    func caughtUp<P: Projection>(_ projection: P) throws -> ProjectionStore {
        let store = try store(projection)
        try store.catchUp(from: log, batchSize: 3)
        #expect(try store.checkpoint == log.headPosition())
        return store
    }
}
