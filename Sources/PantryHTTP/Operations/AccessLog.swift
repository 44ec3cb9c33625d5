import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The access log: one line per request (time, method, route pattern, status, milliseconds), never
/// a path, header or body. Lines go to a file of their own in blocks, not to the process's log:
/// under honcho every stdout line is relayed by Python, which cut every route's throughput by
/// about 2.5 times (117 MB of lines in 20 minutes). The process's log gets a summary every 10 s.
/// The file is rotated at `maxBytes` (one old file kept), so a month of traffic stays bounded.
/// A service: lines are written once a second by `run()`, and a last time at graceful shutdown,
/// which in the API's group comes after the HTTP server has answered its last request.
package final class AccessLog: Service {
    static let maxBytes = 64 << 20
    static let blockBytes = 64 << 10
    static let summaryInterval: Duration = .seconds(10)

    private struct State {
        var buffer: [UInt8] = []
        var file: FileHandle?
        var fileBytes = 0
        var statusCounts: [Int: Int] = [:]
    }

    let path: String?
    private let state = Mutex(State())
    private let logger: Logger

    /// `path` nil: no access log lines, only the summaries.
    init(path: String?, logger: Logger) throws {
        self.path = path
        self.logger = logger
        if let path { try state.withLock { try Self.open(path, into: &$0) } }
    }

    func record(method: String, route: String, status: Int, nanoseconds: Int64) {
        let line = path == nil ? nil
            : "\(Int64(Date().timeIntervalSince1970 * 1000)) \(method) \(route) \(status) \(Self.milliseconds(nanoseconds))\n"
        let full = state.withLock { state in
            state.statusCounts[status / 100, default: 0] += 1
            guard let line else { return false }
            state.buffer.append(contentsOf: line.utf8)
            return state.buffer.count >= Self.blockBytes
        }
        if full { flush() }
    }

    /// "12.345": milliseconds to the microsecond, in integers (printing a Double cost more than
    /// the rest of the line).
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let micros = max(0, nanoseconds / 1000)
        let fraction = String(micros % 1000)
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    private func flush() {
        state.withLock { state in
            guard !state.buffer.isEmpty, let file = state.file else { return }
            do {
                try file.write(contentsOf: state.buffer)
                state.fileBytes += state.buffer.count
                state.buffer.removeAll(keepingCapacity: true)
                if state.fileBytes >= Self.maxBytes, let path { try Self.rotate(path, &state) }
            } catch {
                // A full disk must not stop the API: the lines are dropped, and that is said once a block.
                state.buffer.removeAll(keepingCapacity: true)
                logger.warning("access log lines dropped", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Writes the lines once a second (a timer, not a poll: a full block is written at once by
    /// `record`) and the summary every `summaryInterval`, until graceful shutdown; then the rest.
    package func run() async {
        try? await cancelWhenGracefulShutdown { try await self.flushPeriodically() }
        flush()
    }

    private func flushPeriodically() async throws {
        var lastSummary = ContinuousClock.now
        while true {
            try await Task.sleep(for: .seconds(1))
            flush()
            guard ContinuousClock.now - lastSummary >= Self.summaryInterval else { continue }
            lastSummary = ContinuousClock.now
            let counts = state.withLock { state in
                defer { state.statusCounts.removeAll(keepingCapacity: true) }
                return state.statusCounts
            }
            guard !counts.isEmpty else { continue }
            logger.info("requests", metadata: Dictionary(uniqueKeysWithValues: counts.map {
                ("\($0.key)xx", Logger.MetadataValue.stringConvertible($0.value))
            }).merging(["seconds": "\(Self.summaryInterval.components.seconds)"]) { a, _ in a })
        }
    }

    private static func open(_ path: String, into state: inout State) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        state.fileBytes = Int(try file.seekToEnd())
        state.file = file
    }

    private static func rotate(_ path: String, _ state: inout State) throws {
        try state.file?.close()
        let old = path + ".1"
        if FileManager.default.fileExists(atPath: old) { try FileManager.default.removeItem(atPath: old) }
        try FileManager.default.moveItem(atPath: path, toPath: old)
        try open(path, into: &state)
    }
}
