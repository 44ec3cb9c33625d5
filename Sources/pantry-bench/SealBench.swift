import ArgumentParser
import Foundation
import Logging
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys

/// What sealing costs on the command path (issue 32): a grocery item sealed with its user's key,
/// a command id and fingerprint keyed with it, beside a whole durable command through the
/// `CommandProcessor` (decide, seal, key, one synced commit per batch) that pays them, for grocery
/// adds (sealed, id and fingerprint keyed) and points (only a client's id keyed).
struct SealBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "seal")

    @Option(help: "Operations timed for each micro figure.") var repeats = 200_000
    @Option(help: "Commands per kind through the processor.") var commands = 100_000
    @Option(help: "Commands per batch (one commit each).") var batch = 256
    @Option(help: "Registered users the commands are spread over.") var users = 1_000
    @Option(help: "Where the temporary log goes.") var directory = NSTemporaryDirectory()

    func run() throws {
        let root = URL(fileURLWithPath: directory).appendingPathComponent("pantry-bench-seal-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let logPath = root.appendingPathComponent("events.sqlite").path
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let keys = try UserKeyStore(path: logPath + ".keys", readOnly: false)
        let processor = try CommandProcessor(store: SQLiteEventStore(path: logPath, checkpointsInBackground: true),
                                             keys: keys, logger: logger)
        let registered = processor.process((0..<users).map {
            CommandEnvelope(commandId: "register-\($0)", command: .registerUser(RegisterUser(
                userId: "u\($0)", username: "cook\($0)", email: "cook\($0)@example.org", passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA")))
        })
        guard registered.allSatisfy({ $0.status == .accepted }) else { throw ValidationError("the users were not registered") }

        func micro(_ body: (Int) throws -> Void) rethrows -> Double {
            let began = ContinuousClock.now
            for n in 0..<repeats { try body(n) }
            return seconds(ContinuousClock.now - began) / Double(repeats) * 1e6
        }
        let grocery = { (n: Int) in Event.groceryAdded(GroceryAdded(
            userId: "u\(n % users)", item: "insulin pen \(n)", ingredient: "Insulin pens \(n)", amount: 2, unit: nil,
            recipeId: nil, merged: false)) }
        let point = { (n: Int) in Event.pointEarned(PointEarned(userId: "u\(n % users)", recipeId: "catalog:shakshuka", ingredient: "egg")) }
        let sealedEncode = try micro { _ = try EventCoding.encode(grocery($0), vault: keys) }
        let clearEncode = try micro { _ = try EventCoding.encode(point($0), vault: keys) }
        let keyedId = try micro { _ = try keys.commandIdAsStored("u\($0 % users):idempotency-key-\($0)", for: "u\($0 % users)") }
        let keyedFingerprint = try micro { _ = try keys.fingerprintAsStored(UInt64($0), for: "u\($0 % users)") }

        func through(_ name: String, _ command: (Int) -> Command) throws -> Double {
            let began = ContinuousClock.now
            for start in stride(from: 0, to: commands, by: batch) {
                let outcomes = processor.process((start..<min(start + batch, commands)).map {
                    CommandEnvelope(commandId: "u\($0 % users):\(name)-\($0)", command: command($0))
                })
                guard outcomes.allSatisfy({ $0.status == .accepted }) else { throw ValidationError("\(name): \(outcomes.first { $0.status != .accepted }!)") }
            }
            return seconds(ContinuousClock.now - began) / Double(commands) * 1e6
        }
        let groceries = try through("grocery") { .addGrocery(AddGrocery(userId: "u\($0 % users)", ingredient: "Insulin pens \($0)")) }
        // Each point new: recipe n / 50, ingredient n % 50 of its 50.
        let facts = RecipeFacts(title: "Bench", image: nil, ingredients: (0..<50).map { "ingredient \($0)" })
        let points = try through("point") {
            .useOwnedIngredient(UseOwnedIngredient(userId: "u\($0 % users)", recipeId: RecipeID("bench:\($0 / 50)"),
                                                   ingredient: "ingredient \($0 % 50)", recipe: facts))
        }
        print("per operation, µs (\(repeats) each): GroceryAdded encoded and sealed \(fmt(sealedEncode, 2)); PointEarned encoded (no seal) \(fmt(clearEncode, 2)); command id keyed \(fmt(keyedId, 2)); fingerprint keyed \(fmt(keyedFingerprint, 2))")
        print("per durable command through the processor, µs (\(commands) each, batches of \(batch)): AddGrocery \(fmt(groceries, 2)); UseOwnedIngredient \(fmt(points, 2))")
        let sealShare = (sealedEncode - clearEncode + keyedId + keyedFingerprint) / groceries
        let pointShare = keyedId / points // a point's fingerprint holds no text: not keyed
        print("share of a command's time: sealing and keying an AddGrocery \(fmt(sealShare * 100, 1)) %; keying a UseOwnedIngredient \(fmt(pointShare * 100, 1)) %")
        print(#"{"sealedEncodeMicros":\#(fmt(sealedEncode, 3)),"clearEncodeMicros":\#(fmt(clearEncode, 3)),"keyedIdMicros":\#(fmt(keyedId, 3)),"keyedFingerprintMicros":\#(fmt(keyedFingerprint, 3)),"addGroceryMicros":\#(fmt(groceries, 3)),"useOwnedIngredientMicros":\#(fmt(points, 3)),"batch":\#(batch),"commands":\#(commands)}"#)
    }
}
