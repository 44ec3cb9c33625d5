import ArgumentParser
import Foundation
import Logging
import PantryBus
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import ZeroMQ
import PantryWire

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read commands as JSON lines on stdin and print one JSON outcome per line.",
        discussion: """
            Each line is {"commandId": "...", "type": "UseOwnedIngredient", "data": {...}}; see schemas/commands.
            Lines that arrive together are decided and committed as one batch (sent to a running core
            as batch frames). A bad line gets a
            rejection and changes nothing; the rest go on. When a core is running on the data
            directory the commands go to it; otherwise this process writes the log itself.
            Exit status 1 when any command was rejected or failed (every outcome is printed).
            """
    )

    @OptionGroup var options: DataOptions

    @Option(name: [.customLong("core-commands"), .customLong("commands")],
            help: "The core's command endpoint, when it is not the default of the data directory; or PANTRY_CORE_COMMANDS.")
    var commands: String?

    @Option(help: "Seconds to wait for a running core's answer.")
    var timeout: Double = 10

    func run() throws {
        let config = try self.options.configuration(["core-commands": commands])
        let options = try config.deployment()
        let directory = try DataDirectory(options.data)
        let endpoints = try config.endpoints(directory.url).bus
        bootstrapLogging(options.logLevel)
        let lock: WriterLock
        do {
            lock = try WriterLock(path: directory.writerLock)
        } catch is WriterLock.Held {
            // Someone holds the log: a running core, which takes commands over ZeroMQ.
            guard try submitToCore(endpoints) else { throw ExitCode(1) }
            return
        }
        defer { withExtendedLifetime(lock) {} }
        let processor = try CommandProcessor(store: options.openLogForWriting(directory, logger: Logger(label: "pantry.submit")).0,
                                             keys: UserKeyStore(path: directory.userKeys, readOnly: false),
                                             erasures: ErasureLedger(path: directory.erasures),
                                             snapshotPath: directory.coreSnapshot, paces: try config.core().paces)
        let allAccepted = try forEachBatch { batch in processor.process(&batch) }
        processor.waitForSnapshot()
        if !allAccepted { throw ExitCode(1) }
    }

    private func submitToCore(_ endpoints: BusEndpoints) throws -> Bool {
        let context = try endpoints.makeContext(logger: Logger(label: "pantry.submit"))
        let client = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(timeout))
        return try forEachBatch { batch in batch.answer(try client.submitInBatches(batch.pending)) }
    }

    /// Reads stdin a batch at a time, answers lines that cannot be read as commands itself and hands
    /// the rest to `decide`, printing every outcome in input order; true when every one was accepted.
    private func forEachBatch(_ decide: (inout Batch) throws -> Void) throws -> Bool {
        var allAccepted = true
        var reader = LineReader(descriptor: STDIN_FILENO, maxLineBytes: CommandCoding.maxDocumentBytes)

        while let lines = reader.nextLines() {
            var batch = Batch()
            for line in lines {
                switch line {
                case .oversized:
                    batch.refuse(Rejection(.tooLarge, "a command must be at most \(CommandCoding.maxDocumentBytes) bytes"))
                case .bytes(let bytes) where bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }):
                    continue // blank lines are skipped, not answered
                case .bytes(let bytes):
                    batch.read(bytes)
                }
            }
            try decide(&batch)
            var output = Data()
            for outcome in batch.outcomes {
                if outcome.status != .accepted { allAccepted = false }
                output.append(outcome.jsonDocument)
                output.append(UInt8(ascii: "\n"))
            }
            FileHandle.standardOutput.write(output)
        }
        return allAccepted
    }
}
