import ArgumentParser
import Foundation
import GRDB
import Logging
import PantryBus
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import ZeroMQ
import PantryLog

/// Durable `UseOwnedIngredient` commands per second through `CoreServer`, the batching that serves
/// traffic (every command waiting on its socket is decided and committed as one batch), from
/// clients that each keep a window of commands in flight over ZeroMQ, against a plain `INSERT`
/// of the very same rows in one transaction.
struct GroupCommitBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "group-commit")

    @Option(help: "Accepted commands to submit.") var commands = 200_000
    @Option(help: "Client threads, each with its own DEALER socket.") var clients = 8
    @Option(help: "Commands each client keeps in flight (clients x window in all).") var window = 512
    @Option(help: "Registered users the commands are spread over.") var users = 1_000
    @Option(help: "Where the temporary logs go.") var directory = NSTemporaryDirectory()

    func run() throws {
        let root = URL(fileURLWithPath: directory).appendingPathComponent("pantry-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let logPath = root.appendingPathComponent("events.sqlite").path
        let processor = try CommandProcessor(store: SQLiteEventStore(path: logPath, checkpointsInBackground: true),
                                             keys: UserKeyStore(path: logPath + ".keys", readOnly: false), paces: BenchRecipes.paces)
        let checkpointer = try BackgroundCheckpointer(path: logPath, logger: Logger(label: "bench"))
        let store = processor.store
        let context = try ZMQContext()
        let endpoints = BusEndpoints(dataDirectory: root)
        // The processor belongs to the server's thread from here on; this thread only reads the
        // server's batch counts, which are atomic, and the store.
        let server = try CoreServer(processor: processor, context: context, configuration: .init(endpoints: endpoints))
        let counts = server.batchCounts
        // The services as `pantry core` runs them, stopped (cancelled) and waited for at the end.
        let served = DispatchSemaphore(value: 0)
        let serving = Task {
            try? await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await checkpointer.run() }
                group.addTask { try await server.run() }
            }
            served.signal()
        }
        defer {
            serving.cancel()
            served.wait()
            context.shutdown()
        }

        let setup = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(60))
        // The recipes are recorded by a user of their own: the measured points never repeat one of its.
        let registrations = (0...users).map { n in
            CommandEnvelope(commandId: "register-\(n)", command: .registerUser(RegisterUser(
                userId: "u\(n)", username: "user\(n)", email: "user\(n)@example.org",
                passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo")))
        }
        let recordings = (0..<BenchRecipes.count).map { BenchRecipes.recording($0, userId: "u\(users)", commandId: "record-\($0)") }
        let recipes = BenchRecipes.recipes(points: 0..<commands, users: users)
        let cooking = (0..<users).flatMap { user in
            recipes.flatMap {
                BenchRecipes.cooking($0, userId: "u\(user)", commandId: "cook-\(user)-\($0)")
            }
        }
        let setupCommands = registrations + recordings + cooking
        for start in stride(from: 0, to: setupCommands.count, by: 20_000) {
            guard try setup.submit(Array(setupCommands[start..<min(start + 20_000, setupCommands.count)]))
                .allSatisfy({ $0.status == .accepted }) else {
                throw ValidationError("the setup commands were not all accepted")
            }
        }
        let start = try store.headPosition()
        let batchesBefore = counts.batches.load(ordering: .relaxed)
        let commandsBefore = counts.commands.load(ordering: .relaxed)

        let perClient = commands / clients
        let total = perClient * clients
        let accepted = Counter()
        let clock = ContinuousClock()
        let began = clock.now
        let threads = (0..<clients).map { client in
            Thread { [window, users] in
                do {
                    let connection = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(60))
                    var next = 0
                    while next < perClient {
                        let batch = (next..<min(next + window, perClient)).map { k in
                            let n = client * perClient + k
                            let point = BenchRecipes.point(n, users: users)
                            return CommandEnvelope(commandId: "use-\(n)", command: .useOwnedIngredient(UseOwnedIngredient(
                                userId: "u\(point.user)", recipeId: BenchRecipes.id(point.recipe), ingredient: point.ingredient)))
                        }
                        accepted.add(try connection.submit(batch).filter { $0.status == .accepted }.count)
                        next += batch.count
                    }
                } catch {
                    FileHandle.standardError.write(Data("client \(client): \(error)\n".utf8))
                }
            }
        }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(1_000) }
        let groupSeconds = seconds(clock.now - began)
        guard accepted.value == total else { throw ValidationError("only \(accepted.value) of \(total) commands were accepted") }
        let batches = counts.batches.load(ordering: .relaxed) - batchesBefore
        let batched = counts.commands.load(ordering: .relaxed) - commandsBefore

        // The baseline: the same event rows, already encoded, inserted in one transaction.
        var rows: [RecordedEvent] = []
        var after = start
        while case let batch = try store.read(after: after, limit: 50_000), let last = batch.last {
            rows += batch
            after = last.position
        }
        let baselineSeconds = try plainInsert(rows, into: root.appendingPathComponent("baseline.sqlite").path)

        let groupRate = Double(total) / groupSeconds
        let baselineRate = Double(rows.count) / baselineSeconds
        print("group commit   \(total) UseOwnedIngredient through CoreServer, \(clients) clients x \(window) in flight: \(fmt(groupRate)) accepted commands/s (\(fmt(groupSeconds, 2)) s)")
        print("               \(batches) batches, \(batched / max(batches, 1)) commands per batch on average")
        print("plain INSERT   \(rows.count) same rows, one transaction:            \(fmt(baselineRate)) rows/s (\(fmt(baselineSeconds, 2)) s)")
        print("ratio          \(fmt(groupRate / baselineRate, 3))  (targets: >= 50000 commands/s, ratio >= 0.5)")
    }

    private func plainInsert(_ rows: [RecordedEvent], into path: String) throws -> Double {
        let pool = try DatabasePool(path: path)
        // As the log does: on the writer, after GRDB has set its NORMAL there.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        try SQLiteEventStore.migrator.migrate(pool)
        let clock = ContinuousClock()
        let began = clock.now
        try pool.write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO events (position, stream_id, stream_version, type, schema_version, data,
                                    command_id, correlation_id, causation_id, user_id, recorded_at, command_fingerprint)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for e in rows {
                let m = e.metadata
                insert.setUncheckedArguments([
                    e.position, e.streamId, e.streamVersion, e.type, e.schemaVersion, String(decoding: e.data, as: UTF8.self),
                    m.commandId, m.correlationId, m.causationId, m.userId, m.recordedAt,
                    m.commandFingerprint.map { Int64(bitPattern: $0) },
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
