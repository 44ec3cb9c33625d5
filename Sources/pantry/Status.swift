import ArgumentParser
import Curl
import Foundation
import PantryAPI
import PantryBus
import PantryCore
import PantryEventStore
import PantryProjections

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the log's head and every process: whether it runs, and a projection's position and lag.",
        discussion: "Exit status 1 when a process is down (the report is printed all the same).")

    @OptionGroup var options: DataOptions

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    @Option(help: "The API's port, as `pantry api` was given it; default PANTRY_PORT or 8080.")
    var port: Int?

    @Option(help: "The API's address, as `pantry api` was given it; default PANTRY_HOST or 127.0.0.1.")
    var host: String?

    struct Report: Encodable {
        struct Process: Encodable {
            var name: String
            var running: Bool
            var position: Int64?
            var lag: Int64?
        }
        var head: Int64
        var processes: [Process]
        /// How the processes' internal network is protected, as this configuration sets it up.
        var network: NetworkProtection
    }

    func run() throws {
        let config = try self.options.configuration(["port": port, "host": host])
        let options = try config.deployment()
        let directory = DataDirectory(readingFrom: options.data)
        let (endpoints, _) = try config.endpoints(directory.url)
        var api = APIServer.Configuration(dataDirectory: directory.url, endpoints: endpoints, log: .service)
        try config.api(&api)
        let head = try options.openExistingLog(directory).headPosition()
        var processes = [Report.Process(name: "core", running: isLocked(directory.writerLock), position: head, lag: 0)]
        for name in ProjectionCatalog.names {
            let position = try? Replayer.checkpoint(name: name, directory: directory.projections)
            processes.append(.init(name: name, running: isLocked(directory.workerLock(name)),
                                   position: position, lag: position.map { head - $0 }))
        }
        processes.append(.init(name: "fetch", running: isLocked(directory.url.appendingPathComponent("fetch.lock").path)))
        processes.append(.init(name: "api", running: answers(host: api.host, port: api.port)))
        let report = Report(head: head, processes: processes, network: endpoints.protection)
        if json {
            printJSONLine(report, encoder: .lines)
        } else {
            print("head position \(head)")
            if report.network == .insecure {
                print("network       INSECURE: tcp:// without CURVE (--insecure-network), anyone on the network may read and send")
            }
            print("process       running  position      lag")
            for p in processes {
                let name = p.name.padding(toLength: 13, withPad: " ", startingAt: 0)
                print("\(name) \(p.running ? "yes    " : "no     ")  \(p.position.map { String($0) } ?? "-")\t\(p.lag.map { String($0) } ?? "-")")
            }
        }
        if processes.contains(where: { !$0.running }) { throw ExitCode(1) }
    }

    /// The API runs when its `/health` (at the configured `host` and `port`) answers 200 within a
    /// second: it holds no lock, and several may serve one data directory. An API listening on
    /// every address is asked on loopback.
    private func answers(host: String, port: Int) -> Bool {
        let address = switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        case let ipv6 where ipv6.contains(":") && !ipv6.hasPrefix("["): "[\(ipv6)]"
        case let named: named
        }
        let response = try? CurlEasy().perform(HTTPRequest(method: .get, url: "http://\(address):\(port)/health", headers: [],
                                                           body: nil, connectTimeout: 1, timeout: 1, maxBodyBytes: 4096))
        return response?.status == 200
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
