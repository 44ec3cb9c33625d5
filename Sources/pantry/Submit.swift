import ArgumentParser
import Foundation
import Logging
import PantryCore
import PantryDomain
import PantryEventStore

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read commands as JSON lines on stdin and print one JSON outcome per line.",
        discussion: """
            Each line is {"commandId": "...", "type": "UseOwnedIngredient", "data": {...}}; see schemas/commands.
            Lines that arrive together are decided and committed as one batch. A bad line gets a
            rejection and changes nothing; the rest go on.
            """
    )

    @OptionGroup var options: DataOptions

    func run() throws {
        bootstrapLogging()
        let directory = try DataDirectory(options.data)
        let lock = try WriterLock(path: directory.writerLock)
        defer { withExtendedLifetime(lock) {} }
        let processor = try CommandProcessor(store: SQLiteEventStore(path: directory.eventLog))
        let encoder = JSONEncoder.lines
        var reader = LineReader(descriptor: STDIN_FILENO, maxLineBytes: CommandCoding.maxDocumentBytes)

        while let lines = reader.nextLines() {
            var outcomes = [CommandOutcome?](repeating: nil, count: lines.count)
            var envelopes: [CommandEnvelope] = []
            var owners: [Int] = []
            for (index, line) in lines.enumerated() {
                switch line {
                case .oversized:
                    outcomes[index] = .rejected(nil, Rejection(.tooLarge, "a command must be at most \(CommandCoding.maxDocumentBytes) bytes"))
                case .bytes(let bytes) where bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }):
                    continue // blank lines are skipped, not answered
                case .bytes(let bytes):
                    switch CommandCoding.decode(bytes) {
                    case .success(let envelope):
                        envelopes.append(envelope)
                        owners.append(index)
                    case .failure(let failure):
                        outcomes[index] = .rejected(failure.commandId, failure.rejection)
                    }
                }
            }
            for (owner, outcome) in zip(owners, processor.process(envelopes)) { outcomes[owner] = outcome }
            for outcome in outcomes.compactMap({ $0 }) { printJSONLine(outcome, encoder: encoder) }
        }
    }
}
