import Foundation
import PantryDomain
import PantryEventStore
import Testing

@Suite struct SubmitBadInputTests {
    @Test func everyBadLineGetsARejectionAndAppendsNothing() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let register = #"{"commandId":"r1","type":"RegisterUser","data":{"userId":"u1","username":"anna","email":"a@example.org","passwordHash":"\#(testPasswordHash)"}}"#
        let good = #"{"commandId":"g1","type":"AdjustCart","data":{"userId":"u1","recipeId":"r","delta":1,"recipe":{"title":"Soup","ingredients":["salt"]}}}"#
        let bad: [(bytes: [UInt8], code: String)] = [
            (Array("not json".utf8), "malformed_json"),
            (Array("[1,2,3]".utf8), "invalid_field"),
            (Array("{}".utf8), "invalid_field"),
            (Array(#"{"commandId":"b1","type":"AdjustCart","data":{"userId":"u1","recipeId":"r","delta":"2"}}"#.utf8), "invalid_field"),
            (Array(#"{"commandId":"b2","type":"Explode","data":{}}"#.utf8), "unknown_command"),
            (Array(#"{"commandId":"b3","type":"SaveRecipe","data":{"userId":"u1","recipeId":"r","recipe":{"title":"\#(String(repeating: "x", count: 5000))","ingredients":["salt"]}}}"#.utf8), "invalid_title"),
            (Array(#"{"commandId":"b4","type":"SaveRecipe","data":{"userId":"u1","recipeId":"r","recipe":{"title":"\#(String(repeating: "y", count: 70_000))","ingredients":["salt"]}}}"#.utf8), "too_large"),
            (Array(#"{"commandId":"b7","type":"AdjustCart","data":{"userId":"u1","recipeId":"made-up","delta":1}}"#.utf8), "unknown_recipe"),
            (Array(#"{"commandId":"b8","type":"UseOwnedIngredient","data":{"userId":"u1","recipeId":"r","ingredient":"gold","recipe":{"title":"Soup","ingredients":["salt"]}}}"#.utf8), "not_cooking"),
            ([0x7B, 0xFF, 0xFE, 0x7D], "invalid_utf8"),
            (Array(#"{"commandId":"b5","type":"UseOwnedIngredient","data":{"userId":"nobody","recipeId":"r","ingredient":"salt"}}"#.utf8), "unknown_user"),
            (Array(#"{"commandId":"b6","type":"UseOwnedIngredient","data":{"userId":"u1","recipeId":"r","ingredient":""}}"#.utf8), "invalid_ingredient"),
        ]
        var input = Data((register + "\n").utf8)
        for line in bad { input.append(contentsOf: line.bytes + [0x0A]) }
        input.append(Data((good + "\n").utf8))

        let (status, lines) = try PantryBinary.run(["submit", "--data", directory.path], input: input)

        #expect(status == 1, "a rejected line makes the exit status 1, after every outcome is printed")
        try #require(lines.count == bad.count + 2)
        #expect(lines.first?.jsonObject?["status"] as? String == "accepted")
        for (line, expected) in zip(lines.dropFirst(), bad) {
            let outcome = try #require(line.jsonObject)
            #expect(outcome["status"] as? String == "rejected")
            #expect(outcome["code"] as? String == expected.code, "\(line)")
            #expect((outcome["message"] as? String)?.isEmpty == false)
        }
        #expect(lines.last?.jsonObject?["status"] as? String == "accepted", "the process kept going after bad input")
        let store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path, readOnly: true)
        #expect(try store.headPosition() == 3, "the registration, then the good line: its recipe's facts and its cart line")

        let again = try PantryBinary.run(["submit", "--data", directory.path], input: Data((good + "\n" + register + "\n").utf8))
        #expect(again.status == 0 && again.lines.count == 2, "the same commands again: duplicates, accepted")
    }

    /// A held writer lock means a core owns the log: submit never writes beside it, and says so
    /// when that core does not answer.
    @Test func submitNeverWritesALogAnotherProcessHolds() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lock = try WriterLock(path: directory.appendingPathComponent("events.lock").path)
        let register = #"{"commandId":"r1","type":"RegisterUser","data":{"userId":"u1","username":"anna","email":"a@example.org","passwordHash":"\#(testPasswordHash)"}}"#
        let (status, lines) = try PantryBinary.run(["submit", "--data", directory.path, "--timeout", "0.5"], input: Data((register + "\n").utf8))
        #expect(status != 0)
        #expect(lines.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("events.sqlite").path))
        withExtendedLifetime(lock) {}
    }
}
