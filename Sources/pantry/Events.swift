import ArgumentParser
import Foundation
import PantryCore
import PantryEventStore
import PantryLog

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the event log as JSON lines.")

    @OptionGroup var options: DataOptions

    @Option(help: "The first position to print.")
    var from: Int64 = 1

    @Option(help: "Stop after this many events.")
    var limit: Int?

    @Flag(help: "Keep printing new events as they are appended.")
    var follow = false

    func run() throws {
        let options = try self.options.configuration().deployment()
        let directory = DataDirectory(readingFrom: options.data)
        let store = try options.openExistingLog(directory)
        var after = max(from, 1) - 1
        var remaining = limit ?? Int.max
        while remaining > 0 {
            let batch = try store.read(after: after, limit: min(remaining, 1_000))
            for event in batch {
                var line = EventDocument.encode(event)
                line.append(UInt8(ascii: "\n"))
                FileHandle.standardOutput.write(line)
            }
            remaining -= batch.count
            after = batch.last?.position ?? after
            if batch.isEmpty {
                guard follow else { return }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }
}
