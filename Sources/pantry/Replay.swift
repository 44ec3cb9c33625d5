import ArgumentParser
import Foundation
import PantryBus
import PantryCore
import PantryEventStore
import PantryKeys
import PantryProjections
import ZeroMQ
import PantryLog
import PantryWire
import Logging

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rebuild projections from position 0 into fresh files, then swap them in.",
        discussion: """
            The rebuild goes to a file beside the live one, up to the log's head. A running worker
            is then asked to swap it in between two turns of its loop (it catches the rebuild up to
            its own position, copies it into its file in one transaction and goes on from there);
            with the worker stopped the rebuild is renamed over its file. Either way the other
            processes keep running. With --verify, each projection is rebuilt up to the live file's
            checkpoint and the two checksums are compared instead; nothing is swapped, and any
            difference exits non-zero. One replay of a projection at a time.
            """)

    @Argument(help: "Projections to rebuild (default: all).")
    var names: [String] = []

    @OptionGroup var options: DataOptions

    @Flag(help: "Compare a rebuild with the live state instead of swapping it in.")
    var verify = false

    @Option(name: [.customLong("core-log"), .customLong("log-service")],
            help: "The core's log service (e.g. tcp://core:5557), read instead of the log itself when set; or PANTRY_CORE_LOG.")
    var logService: String?

    @Option(help: "Events read from the log per batch.")
    var batchSize = Replayer.defaultBatchSize

    func validate() throws {
        if let unknown = names.first(where: { !ProjectionCatalog.names.contains($0) }) {
            throw ValidationError("there is no projection '\(unknown)'; choose from \(ProjectionCatalog.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let config = try self.options.configuration(["core-log": logService])
        let options = try config.deployment()
        let directory = try DataDirectory(options.data)
        let (endpoints, remote) = try config.endpoints(directory.url)
        // On a worker host the log is the core's, over the network, with sealed fields opened there.
        let context = try endpoints.makeContext(logger: Logger(label: "pantry.replay"))
        defer { context.shutdown() }
        let (log, keys): (any EventLogReader, UserKeyStore?)
        if remote {
            (log, keys) = (RemoteEventStore(context: context, endpoint: endpoints.log), nil)
        } else {
            (log, keys) = (try options.openExistingLog(directory), try UserKeyStore(path: directory.userKeys, readOnly: true))
        }
        var differences = 0
        try FileManager.default.createDirectory(at: directory.projections, withIntermediateDirectories: true)
        for name in names.isEmpty ? ProjectionCatalog.names : names {
            let projection = try ProjectionCatalog.named(name)
            let replayLock: WriterLock
            do {
                replayLock = try WriterLock(path: directory.replayLock(name))
            } catch is WriterLock.Held {
                throw ValidationError("another replay of \(name) is running on \(directory.url.path): wait for it to end")
            }
            defer { withExtendedLifetime(replayLock) {} }
            if verify {
                let liveFile = ProjectionStore.fileURL(name: name, directory: directory.projections)
                guard FileManager.default.fileExists(atPath: liveFile.path) else {
                    print("\(name): no live file (its worker never ran here): nothing to compare")
                    continue
                }
                let live = try Replayer.checksum(name: name, directory: directory.projections)
                let report: ReplayReport
                do {
                    report = try Replayer.rebuild(projection, directory: directory.projections, from: log, keys: keys,
                                                  batchSize: batchSize, through: live.checkpoint, swap: false,
                                                  progress: ProgressBar(label: name).update)
                    try Replayer.discardRebuild(of: liveFile)
                } catch {
                    try? Replayer.discardRebuild(of: liveFile)
                    throw error
                }
                let same = report.checksum == live.checksum && report.checkpoint == live.checkpoint
                if !same { differences += 1 }
                print("\(name): \(same ? "same" : "DIFFERENT") at position \(live.checkpoint) (live \(live.checksum.prefix(16)), rebuilt \(report.checksum.prefix(16)) at \(report.checkpoint)); \(rate(report))")
            } else {
                let report = try Replayer.rebuild(projection, directory: directory.projections, from: log, keys: keys,
                                                  batchSize: batchSize, swap: false, progress: ProgressBar(label: name).update)
                let rebuilt = try Replayer.finishRebuild(of: ProjectionStore.fileURL(name: name, directory: directory.projections))
                let built = "\(name): rebuilt at position \(report.checkpoint), checksum \(report.checksum.prefix(16)) (\(rate(report)))"
                guard let worker = WorkerName(rawValue: name) else { preconditionFailure("no worker keeps \(name)") }
                let swap = LiveSwap(worker: worker, directory: directory, rebuilt: rebuilt,
                                    endpoint: endpoints.queries(of: worker), context: context)
                print("\(built); \(try swap.run())")
            }
        }
        if differences > 0 { throw ExitCode(1) }
    }

    private func rate(_ report: ReplayReport) -> String {
        String(format: "%lld events in %.2f s, %.0f events/s", report.events, report.seconds, report.eventsPerSecond)
    }
}

/// A one-line progress bar with events/s on stderr, redrawn at most ten times a second.
final class ProgressBar {
    private let label: String
    private let started = DispatchTime.now()
    private var lastDraw: UInt64 = 0

    init(label: String) { self.label = label }

    func update(applied: Int64, head: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw > 100_000_000 || applied >= head else { return }
        lastDraw = now
        let fraction = head > 0 ? Double(applied) / Double(head) : 1
        let filled = Int(fraction * 30)
        let seconds = Double(now - started.uptimeNanoseconds) / 1e9
        let rate = seconds > 0 ? Double(applied) / seconds : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        let line = String(format: "\r%@ [%@] %3.0f%% %lld/%lld events %.0f events/s", label, bar, fraction * 100, applied, head, rate)
        FileHandle.standardError.write(Data(line.utf8))
        if applied >= head { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
