import Foundation
import Logging
import Synchronization

/// Where the core keeps its snapshot. Written in the background, to a new file renamed over the
/// old one once it is on disk, so a crash or a full disk mid-write leaves the previous snapshot.
final class CoreSnapshotFile: Sendable {
    let path: String
    private let writing = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "pantry.core.snapshot", qos: .utility)
    private let logger: Logger

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// Nil when there is none, or when it cannot be used (damaged, another version): the log is
    /// the truth, so the caller folds the log instead.
    func read() -> CoreSnapshot? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try CoreSnapshot(decoding: data)
        } catch {
            logger.warning("ignoring the core snapshot; the state is folded from the log",
                           metadata: ["path": "\(path)", "reason": "\(error)"])
            return nil
        }
    }

    /// Encodes and writes `snapshot` on a background thread, unless a write is still going on
    /// (the next one will come). The state in it is a copy: the writer goes on meanwhile.
    func writeInBackground(_ snapshot: CoreSnapshot) {
        guard writing.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        queue.async { [self] in
            defer { writing.store(false, ordering: .releasing) }
            do {
                try write(snapshot)
            } catch {
                logger.error("could not write the core snapshot; the next start folds more of the log",
                             metadata: ["error": "\(error)"])
            }
        }
    }

    /// Waits for a write in progress (tests, and a clean stop).
    func waitForWrites() {
        queue.sync {}
    }

    func write(_ snapshot: CoreSnapshot) throws {
        let started = ContinuousClock.now
        let data = snapshot.encoded()
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        logger.info("wrote the core snapshot", metadata: [
            "position": "\(snapshot.position)", "bytes": "\(data.count)",
            "milliseconds": "\((ContinuousClock.now - started) / .milliseconds(1))",
        ])
    }
}
