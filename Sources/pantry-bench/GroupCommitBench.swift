import ArgumentParser
import Foundation
import GRDB
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys

/// Durable `UseOwnedIngredient` commands per second through the group-commit path, from many
/// concurrent submitters, against a plain `INSERT` of the very same rows in one transaction.
struct GroupCommitBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "group-commit")

    @Option(help: "Accepted commands to submit.") var commands = 200_000
    @Option(help: "Concurrent submitters, each with one command in flight.") var submitters = 4096
    @Option(help: "Registered users the commands are spread over.") var users = 1_000
    @Option(help: "Where the temporary logs go.") var directory = NSTemporaryDirectory()

    func run() async throws {
        let root = URL(fileURLWithPath: directory).appendingPathComponent("pantry-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let logPath = root.appendingPathComponent("events.sqlite").path
        let processor = try CommandProcessor(store: SQLiteEventStore(path: logPath),
                                             keys: UserKeyStore(path: logPath + ".keys", readOnly: false))
        let registrations = (0..<users).map { n in
            CommandEnvelope(commandId: "register-\(n)", command: .registerUser(RegisterUser(
                userId: "u\(n)", username: "user\(n)", email: "user\(n)@example.org",
                passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo")))
        }
        _ = processor.process(registrations)
        _ = processor.process((0..<BenchRecipes.count).map { BenchRecipes.recording($0, userId: "u0", commandId: "record-\($0)") })
        let start = try processor.store.headPosition()

        let queue = GroupCommitQueue(processor: processor)
        let perSubmitter = commands / submitters
        let total = perSubmitter * submitters
        let clock = ContinuousClock()
        let began = clock.now
        let accepted = await withTaskGroup(of: Int.self) { group in
            for submitter in 0..<submitters {
                group.addTask {
                    var accepted = 0
                    for k in 0..<perSubmitter {
                        // Offset past the points the recording commands earned for u0.
                        let point = BenchRecipes.point(submitter * perSubmitter + k + users, users: users)
                        let outcome = await queue.submit(CommandEnvelope(
                            commandId: "use-\(submitter * perSubmitter + k)",
                            command: .useOwnedIngredient(UseOwnedIngredient(
                                userId: "u\(point.user)", recipeId: BenchRecipes.id(point.recipe), ingredient: point.ingredient))))
                        if outcome.status == .accepted { accepted += 1 }
                    }
                    return accepted
                }
            }
            return await group.reduce(0, +)
        }
        let groupSeconds = seconds(clock.now - began)
        queue.shutdown()
        guard accepted == total else { throw ValidationError("only \(accepted) of \(total) commands were accepted") }

        // The baseline: the same event rows, already encoded, inserted in one transaction.
        var rows: [RecordedEvent] = []
        var after = start
        while case let batch = try processor.store.read(after: after, limit: 50_000), let last = batch.last {
            rows += batch
            after = last.position
        }
        let baselinePath = root.appendingPathComponent("baseline.sqlite").path
        let baselineSeconds = try plainInsert(rows, into: baselinePath)

        let groupRate = Double(total) / groupSeconds
        let baselineRate = Double(rows.count) / baselineSeconds
        print("group commit   \(total) UseOwnedIngredient from \(submitters) submitters: \(fmt(groupRate)) accepted commands/s (\(fmt(groupSeconds, 2)) s)")
        print("               \(queue.committedBatches) batches, \(queue.committedCommands / max(queue.committedBatches, 1)) commands per batch on average")
        print("plain INSERT   \(rows.count) same rows, one transaction:            \(fmt(baselineRate)) rows/s (\(fmt(baselineSeconds, 2)) s)")
        print("ratio          \(fmt(groupRate / baselineRate, 3))  (targets: >= 50000 commands/s, ratio >= 0.5)")
    }

    private func plainInsert(_ rows: [RecordedEvent], into path: String) throws -> Double {
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let pool = try DatabasePool(path: path, configuration: config)
        try SQLiteEventStore.migrator.migrate(pool)
        let clock = ContinuousClock()
        let began = clock.now
        try pool.write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO events (position, stream_id, stream_version, type, schema_version, data,
                                    command_id, correlation_id, causation_id, user_id, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for e in rows {
                let m = e.metadata
                insert.setUncheckedArguments([
                    e.position, e.streamId, e.streamVersion, e.type, e.schemaVersion, String(decoding: e.data, as: UTF8.self),
                    m.commandId, m.correlationId, m.causationId, m.userId, m.recordedAt,
                ])
                try insert.execute()
            }
        }
        return seconds(clock.now - began)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func fmt(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
