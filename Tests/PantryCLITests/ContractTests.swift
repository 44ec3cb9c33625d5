import Foundation
import PantryDomain
import PantryEventStore
import PantryKeys
import Testing
import PantryLog

/// Documents encoded from the Swift types validate against `schemas/` with python-jsonschema.
@Suite struct ContractTests {
    static let commands: [CommandEnvelope] = [
        .init(commandId: "c1", command: .registerUser(.init(userId: "u1", username: "anna", email: "anna@example.org", passwordHash: testPasswordHash))),
        .init(commandId: "c2", correlationId: "req-1", command: .saveRecipe(.init(userId: "u1", recipeId: "mealdb:52772", recipe: .init(
            title: "Teriyaki 🍗", image: "https://www.themealdb.com/images/x.jpg", ingredients: ["chicken thighs", "soy sauce"])))),
        .init(commandId: "c3", command: .saveRecipe(.init(userId: "u1", recipeId: "catalog:shakshuka", recipe: .init(
            title: "Shakshuka", image: nil, ingredients: ["eggs", "canned tomatoes"])))),
        .init(commandId: "c4", command: .removeSavedRecipe(.init(userId: "u1", recipeId: "catalog:shakshuka"))),
        .init(commandId: "c5", command: .addGrocery(.init(userId: "u1", ingredient: "Crème fraîche", amount: 0.5, unit: "cup", recipeId: "r1"))),
        .init(commandId: "c6", command: .addGrocery(.init(userId: "u1", ingredient: "salt"))),
        .init(commandId: "c7", command: .checkGrocery(.init(userId: "u1", ingredient: "salt", checked: true))),
        .init(commandId: "c8", command: .removeGrocery(.init(userId: "u1", ingredient: "salt"))),
        .init(commandId: "c9", command: .adjustCart(.init(userId: "u1", recipeId: "r1", delta: 2, recipe: .init(
            title: "Pasta", image: nil, ingredients: ["spaghetti", "olive oil"])))),
        .init(commandId: "c10", command: .startCooking(.init(userId: "u1", recipeId: "r1", minutes: 25))),
        .init(commandId: "c10b", command: .useOwnedIngredient(.init(userId: "u1", recipeId: "r1", ingredient: "Olive Oil"))),
        .init(commandId: "c11", causationId: "c10", command: .writeExperience(.init(userId: "u1", recipeId: "r1", text: "Line one\nline \"two\" \\ done"))),
        .init(commandId: "c12", command: .changePassword(.init(userId: "u1", passwordHash: testPasswordHash))),
        .init(commandId: "c13", command: .deleteUser(.init(userId: "u1"))),
    ]

    @Test func swiftDocumentsMatchTheSchemas() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var state = PantryState()
        let keys = try UserKeyStore(path: directory.appendingPathComponent("keys.sqlite").path, readOnly: false)
        for (n, envelope) in Self.commands.enumerated() {
            try CommandCoding.encode(envelope).write(to: directory.appendingPathComponent("command-\(n).json"))
            let events = try Decider.decide(envelope, state: state, at: 1_795_000_000_000).get()
            for (k, event) in events.enumerated() {
                let type = event.type.rawValue
                let data = try EventCoding.encode(event, vault: keys)
                try data.write(to: directory.appendingPathComponent("event-\(type)-\(n)-\(k).json"))
                let recorded = RecordedEvent(
                    position: Int64(n + 1), streamId: userStream(event.userId), streamVersion: Int64(n + 1), type: type,
                    schemaVersion: event.type.schemaVersion, data: data,
                    metadata: EventMetadata(commandId: envelope.commandId, correlationId: envelope.correlationId,
                                            causationId: envelope.causationId, userId: event.userId, recordedAt: 1_795_000_000_000))
                try EventDocument.encode(recorded).write(to: directory.appendingPathComponent("recorded-\(n)-\(k).json"))
                Decider.evolve(&state, event, at: 1_795_000_000_000)
            }
        }

        let python = ProcessInfo.processInfo.environment["PANTRY_PYTHON"]
            ?? PantryBinary.repositoryRoot.appendingPathComponent(".venv/bin/python").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [PantryBinary.repositoryRoot.appendingPathComponent("Tests/contract/contract.py").path, directory.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(report)")
        #expect(report.contains("0 errors"))
    }
}
