import ArgumentParser
import Foundation
import PantryCore
import PantryEventStore
import PantryProjections

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the log's head and each projection's position, lag and whether its worker runs.")

    @OptionGroup var options: DataOptions

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    struct Report: Encodable {
        struct Process: Encodable {
            var name: String
            var running: Bool
            var position: Int64?
            var lag: Int64?
        }
        var head: Int64
        var processes: [Process]
    }

    func run() throws {
        let options = try self.options.configuration().deployment()
        let directory = try DataDirectory(options.data)
        let head = try options.openExistingLog(directory).headPosition()
        var processes = [Report.Process(name: "core", running: isLocked(directory.writerLock), position: head, lag: 0)]
        for name in ProjectionCatalog.names {
            let position = try? Replayer.checkpoint(name: name, directory: directory.projections)
            processes.append(.init(name: name, running: isLocked(directory.workerLock(name)),
                                   position: position, lag: position.map { head - $0 }))
        }
        let report = Report(head: head, processes: processes)
        if json { return printJSONLine(report, encoder: .lines) }
        print("head position \(head)")
        print("process       running  position      lag")
        for p in processes {
            let name = p.name.padding(toLength: 13, withPad: " ", startingAt: 0)
            print("\(name) \(p.running ? "yes    " : "no     ")  \(p.position.map { String($0) } ?? "-")\t\(p.lag.map { String($0) } ?? "-")")
        }
    }

    /// A held lock means its process is alive: the kernel drops it when the process dies.
    private func isLocked(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do {
            let lock = try WriterLock(path: path)
            withExtendedLifetime(lock) {}
            return false
        } catch {
            return true
        }
    }
}
