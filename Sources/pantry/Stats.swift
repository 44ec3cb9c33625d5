import ArgumentParser
import Foundation
import PantryCore
import PantryEventStore

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the head position and the count of each event type.")

    @OptionGroup var options: DataOptions

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    struct Report: Encodable {
        var head: Int64
        var events: Int
        var byType: [String: Int]
    }

    func run() throws {
        let options = try self.options.configuration().deployment()
        let directory = DataDirectory(readingFrom: options.data)
        let store = try options.openExistingLog(directory)
        let counts = try store.countsByType()
        let report = Report(head: try store.headPosition(), events: counts.values.reduce(0, +), byType: counts)
        if json {
            printJSONLine(report, encoder: .lines)
            return
        }
        print("head position  \(report.head)")
        print("events         \(report.events)")
        for (type, count) in counts.sorted(by: { $0.key < $1.key }) {
            print("  \(type.padding(toLength: 20, withPad: " ", startingAt: 0)) \(count)")
        }
    }
}
