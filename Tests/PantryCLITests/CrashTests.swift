import Foundation
import PantryDomain
import PantryEventStore
import PantryKeys
import PantryPostgresLog
import PantryTestPostgres
import Testing
import PantryLog

/// A writer killed with SIGKILL at an arbitrary moment leaves a log with dense positions, no torn
/// event, and every command it had answered "accepted": with the SQLite log, and with the
/// PostgreSQL log (the writer's session dies with it, in the middle of a transaction).
@Suite struct CrashTests {
    @Test(arguments: ["sqlite", "postgres"]) func killedWriterLosesNothingItAcknowledged(_ log: String) throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let postgres = log == "postgres" ? try TestPostgres.freshDatabase() : nil
        var acknowledged = Set<String>()
        var next = 0

        for round in 0..<3 {
            let process = Process()
            process.executableURL = PantryBinary.url
            process.arguments = ["submit", "--data", directory.path] + (postgres.map { ["--log", $0.url] } ?? [])
            // Thousands of points a second for one user: far past a person's pace, which is not what this tests.
            process.environment = ProcessInfo.processInfo.environment.merging(["PANTRY_POINTS_PACE": "1000000000/0.001"]) { $1 }
            let stdin = Pipe(), stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            try process.run()

            let register = #"{"commandId":"register","type":"RegisterUser","data":{"userId":"u1","username":"anna","email":"a@example.org","passwordHash":"\#(testPasswordHash)"}}"#
            stdin.fileHandleForWriting.write(Data((register + "\n").utf8))
            // Keep the writer busy with batches of commands until it is killed mid-stream.
            let firstOfRound = next
            let writer = Thread {
                var n = firstOfRound
                while true {
                    var chunk = ""
                    for _ in 0..<200 {
                        // Each recipe has 200 ingredients, cooked before its first; every command earns a new point.
                        if n % 200 == 0 {
                            chunk += #"{"commandId":"cart-\#(n)","type":"AdjustCart","data":{"userId":"u1","recipeId":"r\#(n / 200)","delta":1,"recipe":\#(Self.recipeFacts)}}"# + "\n"
                            chunk += #"{"commandId":"cook-\#(n)","type":"StartCooking","data":{"userId":"u1","recipeId":"r\#(n / 200)","minutes":1440}}"# + "\n"
                        }
                        chunk += #"{"commandId":"use-\#(n)","type":"UseOwnedIngredient","data":{"userId":"u1","recipeId":"r\#(n / 200)","ingredient":"ingredient \#(n % 200)","recipe":\#(Self.recipeFacts)}}"# + "\n"
                        n += 1
                    }
                    do { try stdin.fileHandleForWriting.write(contentsOf: Data(chunk.utf8)) } catch { return }
                }
            }
            writer.start()

            let reader = stdout.fileHandleForReading
            var buffer = Data()
            var acceptedThisRound = 0
            let target = 1_500 + round * 700
            while acceptedThisRound < target {
                let data = reader.availableData
                if data.isEmpty { break }
                buffer.append(data)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    if let outcome = line.jsonObject, outcome["status"] as? String == "accepted",
                       let id = outcome["commandId"] as? String {
                        acknowledged.insert(id)
                        acceptedThisRound += 1
                    }
                }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? stdin.fileHandleForWriting.close()
            #expect(process.terminationReason == .uncaughtSignal)
            next += 1_000_000

            let store: any EventStore = if let postgres {
                try #require(try PostgresEventStore.openForReading(address: postgres))
            } else {
                try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path, readOnly: true)
            }
            let events = try readAll(store)
            #expect(events.map(\.position) == Array(1...Int64(events.count)), "positions are dense")
            #expect(Set(events.map(\.metadata.commandId)).isSuperset(of: acknowledged), "every acknowledged command is in the log")
            let keys = try UserKeyStore(path: directory.appendingPathComponent("user-keys.sqlite").path, readOnly: true)
            for event in events {
                _ = try EventCoding.decode(type: event.type, schemaVersion: event.schemaVersion, data: event.data, vault: keys)
            }
            // A recipe's facts are recorded by the first command about it, beside its own event.
            let points = events.filter { $0.type != "RecipeRecorded" }
            #expect(Set(points.map(\.metadata.commandId)).count == points.count, "no command was applied twice")
        }
        #expect(acknowledged.count >= 1_500 + 2_200 + 2_900)
    }

    static let recipeFacts = #"{"title":"Recipe","ingredients":["# + (0..<200).map { "\"ingredient \($0)\"" }.joined(separator: ",") + "]}"

    private func readAll(_ store: any EventStore) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        while case let batch = try store.read(after: events.last?.position ?? 0, limit: 10_000), !batch.isEmpty {
            events += batch
        }
        return events
    }
}
