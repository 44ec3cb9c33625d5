import ArgumentParser
import Foundation
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import PantryProjections

/// Rebuilds every projection from a generated log of `events` events and prints events/s, beside
/// the rate of merely reading the same log (the floor any replay stands on), measured in one run.
struct ReplayBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay")

    @Option(help: "Events in the generated log.") var events = 1_000_000
    @Option(help: "Users the commands are spread over.") var users = 10_000
    @Option(help: "Users deleted at the end of the generated log (their keys destroyed).") var deleted = 0
    @Option(help: "Where the temporary files go.") var directory = NSTemporaryDirectory()
    @Option(help: "Replay only these projections (default: all).") var only: [String] = []
    @Option(help: "Replay the log of this data directory (pantry-bench log) instead of generating one.") var data: String?
    @Option(help: "Also write the figures to this JSON file.") var json: String?

    func run() throws {
        let root = URL(fileURLWithPath: directory).appendingPathComponent("pantry-replay-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let log: SQLiteEventStore, keys: UserKeyStore
        if let data {
            let directory = try DataDirectory(data)
            (log, keys) = (try SQLiteEventStore(path: directory.eventLog), try UserKeyStore(path: directory.userKeys, readOnly: true))
        } else {
            let logPath = root.appendingPathComponent("events.sqlite").path
            keys = try UserKeyStore(path: logPath + ".keys", readOnly: false)
            log = try BenchLog.generate(at: logPath, keys: keys, events: events, users: users, deleted: deleted)
        }
        let head = try log.headPosition()
        var figures: [String: Double] = [:]

        let clock = ContinuousClock()
        var began = clock.now
        var read: Int64 = 0
        while case let batch = try log.read(after: read, limit: Replayer.defaultBatchSize), let last = batch.last { read = last.position }
        let readRate = Double(head) / seconds(clock.now - began)
        print("read the log   \(head) events: \(fmt(readRate)) events/s")
        figures["read events/s"] = readRate

        let rebuilt = root.appendingPathComponent("projections")
        began = clock.now
        let projections = only.isEmpty ? ProjectionCatalog.all : try only.map { try ProjectionCatalog.named($0) }
        for projection in projections {
            let report = try Replayer.rebuild(projection, directory: rebuilt, from: log, keys: keys)
            figures["replay \(projection.name) events/s"] = report.eventsPerSecond
            print("replay \(projection.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(fmt(report.eventsPerSecond)) events/s (\(fmt(report.seconds, 2)) s), ratio to reading \(fmt(report.eventsPerSecond / readRate, 2))")
        }
        let all = Double(head) * Double(projections.count) / seconds(clock.now - began)
        print("all \(projections.count)          \(fmt(all)) projection-events/s   (target: replay >= 1000000 events/s)")
        if let json {
            figures["events"] = Double(head)
            try JSONEncoder().encode(figures).write(to: URL(fileURLWithPath: json))
        }
    }
}
