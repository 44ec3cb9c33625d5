import ArgumentParser
import Crypto
import Foundation
import Logging
import PantryCore
import PantryEventStore
import PantryPostgresLog
import PantryLog

struct MigrateLog: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-log",
        abstract: "Copy the data directory's SQLite log into an empty PostgreSQL log, then verify the copy.",
        discussion: """
            The core must be stopped (its lock is taken for the copy). Events are copied in batches,
            through the PostgreSQL log's own append (so stream versions are checked as for any
            append), with progress on stderr. Then both logs are read again: the head, the count of
            each type and a SHA-256 of every event (its document, its command fingerprint) must be
            equal, or the command exits with status 1. Afterwards start every process with
            PANTRY_LOG (or --log) set to the same address; the snapshot and projections stay valid.
            """)

    @Option(name: .long, help: "The data directory holding events.sqlite; default PANTRY_DATA or ./data.")
    var data: String?

    @Option(name: .long, help: "A JSON file of configuration keys (pantry config lists them); or PANTRY_CONFIG.")
    var config: String?

    @Option(help: "The PostgreSQL log: postgres://USER@HOST:PORT/DATABASE (an empty or new log).")
    var to: String

    @Option(help: "Events per batch (one transaction each).")
    var batch: Int = 10_000

    @Flag(help: "Only compare the two logs (no copy): exit status 1 when they differ.")
    var verifyOnly = false

    struct Report: Encodable {
        var events: Int64
        var head: Int64
        var sha256: String
        var verified: Bool
        var copySeconds: Double
        var verifySeconds: Double
    }

    func run() throws {
        let options = try ConfigurationSources(flags: ["data": data, "config": config]).deployment()
        bootstrapLogging(options.logLevel)
        let logger = Logger(label: "pantry.migrate-log")
        let directory = try DataDirectory(options.data)
        guard FileManager.default.fileExists(atPath: directory.eventLog) else {
            throw ValidationError("there is no SQLite event log at \(directory.eventLog)")
        }
        let lock: WriterLock
        do {
            lock = try WriterLock(path: directory.writerLock)
        } catch is WriterLock.Held {
            throw ValidationError("a core (or another writer) runs on \(directory.url.path): stop it first, so the copy is the whole log")
        }
        defer { withExtendedLifetime(lock) {} }
        let source = try SQLiteEventStore(path: directory.eventLog, readOnly: true)
        // An offline copy: ANALYZE of the whole log, or a batch on a busy server, may take minutes.
        let target = try PostgresEventStore(address: try PostgresLogAddress(to), timeout: max(options.logTimeout, .seconds(600)), logger: logger)

        let head = try source.headPosition()
        let started = ContinuousClock.now
        if !verifyOnly {
            let existing = try target.headPosition()
            guard existing == 0 else {
                throw ValidationError("the PostgreSQL log at \(target.address) already holds \(existing) events: migrate into an empty one")
            }
            try copy(from: source, to: target, head: head)
            try target.analyze()
        }
        let copied = ContinuousClock.now
        let (sourceDigest, targetDigest) = try (digest(of: source, head: head), digest(of: target, head: max(head, try target.headPosition())))
        let sourceCounts = try source.countsByType(), targetCounts = try target.countsByType()
        let targetHead = try target.headPosition()
        let verified = sourceDigest == targetDigest && sourceCounts == targetCounts && targetHead == head
        let report = Report(events: Int64(sourceCounts.values.reduce(0, +)), head: head, sha256: sourceDigest, verified: verified,
                            copySeconds: seconds(copied - started), verifySeconds: seconds(ContinuousClock.now - copied))
        printJSONLine(report, encoder: .lines)
        guard verified else {
            var reasons: [String] = []
            if targetHead != head { reasons.append("head \(targetHead) in PostgreSQL, \(head) in SQLite") }
            if sourceCounts != targetCounts { reasons.append("counts by type differ") }
            if sourceDigest != targetDigest { reasons.append("checksums differ (SQLite \(sourceDigest), PostgreSQL \(targetDigest))") }
            FileHandle.standardError.write(Data("migrate-log: the logs differ: \(reasons.joined(separator: "; "))\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Each batch becomes one append of the runs of consecutive events of one stream, each
    /// expecting the version before its first event; the positions it is given must be the source's.
    private func copy(from source: any EventStore, to target: any EventStore, head: Int64) throws {
        var after: Int64 = 0
        let started = ContinuousClock.now
        while after < head {
            let events = try source.read(after: after, limit: batch)
            guard let last = events.last else { break }
            var appends: [StreamAppend] = []
            for event in events {
                let new = NewEvent(type: event.type, schemaVersion: event.schemaVersion, data: event.data, metadata: event.metadata)
                if let previous = appends.last, previous.streamId == event.streamId,
                   previous.expectedVersion + Int64(previous.events.count) + 1 == event.streamVersion {
                    appends[appends.count - 1].events.append(new)
                } else {
                    appends.append(StreamAppend(streamId: event.streamId, expectedVersion: event.streamVersion - 1, events: [new]))
                }
            }
            let ranges = try target.append(appends)
            guard ranges.first?.lowerBound == events.first?.position, ranges.last?.upperBound == last.position else {
                throw ValidationError("the copy of positions \(after + 1)...\(last.position) was given \(ranges.first?.lowerBound ?? 0)...\(ranges.last?.upperBound ?? 0): the source log is not dense")
            }
            after = last.position
            let rate = Double(after) / max(seconds(ContinuousClock.now - started), 0.001)
            FileHandle.standardError.write(Data("migrate-log: copied \(after) of \(head) events (\(Int(rate)) events/s)\n".utf8))
        }
    }

    /// SHA-256 of every event's document (as `pantry events` prints it) and command fingerprint, in order.
    private func digest(of log: any EventStore, head: Int64) throws -> String {
        var hash = SHA256()
        var after: Int64 = 0
        while after < head {
            let events = try log.read(after: after, limit: batch)
            guard let last = events.last else { break }
            for event in events {
                hash.update(data: EventDocument.encode(event))
                var fingerprint = (event.metadata.commandFingerprint.map { Int64(bitPattern: $0) } ?? -1).littleEndian
                withUnsafeBytes(of: &fingerprint) { hash.update(bufferPointer: $0) }
                hash.update(data: Data([event.metadata.commandFingerprint == nil ? 0 : 1]))
            }
            after = last.position
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
