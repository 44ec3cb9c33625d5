import Foundation
import Glibc
import Logging
import NIOPosix
import PantryDomain
import PantryFiles
import PantryKeys
import ServiceLifecycle
import Synchronization

/// Where the core keeps its snapshot. Written in the background, on NIO's pool for blocking work,
/// to a new file renamed over the old one once it is on disk, so a crash or a full disk mid-write
/// leaves the previous snapshot. A service in the core's group: on graceful shutdown, once the
/// core's server has stopped, it waits for the write under way.
final class CoreSnapshotFile: Service {
    let path: String
    /// Seals the grocery lists in the file.
    private let keys: UserKeyStore
    /// One write at a time; a periodic one asked for meanwhile is skipped.
    private let writer = BackgroundWriter()
    /// Set by a background write that failed; taken (and cleared) by the processor.
    private let writeFailed = Atomic<Bool>(false)
    private let logger: Logger

    init(path: String, keys: UserKeyStore, logger: Logger) {
        self.path = path
        self.keys = keys
        self.logger = logger
    }

    /// Until graceful shutdown, then until the write under way (if any) is on disk.
    func run() async throws {
        try? await gracefulShutdown()
        // Queued behind the write, which was submitted first, on a FIFO pool: never ahead of it.
        try? await NIOThreadPool.singleton.runIfActive { self.waitForWrites() }
    }

    /// Nil when there is none, or when it cannot be used (damaged, another version): the log is
    /// the truth, so the caller folds the log instead.
    func read() -> CoreSnapshot? {
        guard let bytes = Self.contents(of: path) else { return nil }
        do {
            return try CoreSnapshot(decoding: bytes)
        } catch SnapshotFailure.otherVersion(let format, let holdings) {
            // An older format may hold in the clear what this one seals (grocery lists): it goes
            // now, not at the next snapshot, which may be 100,000 events away.
            logger.warning("removing a core snapshot of another version; the state is folded from the log",
                           metadata: ["path": "\(path)", "format": "\(format)", "state": "\(holdings)"])
            try? FileManager.default.removeItem(atPath: path)
            return nil
        } catch {
            logger.warning("ignoring the core snapshot; the state is folded from the log",
                           metadata: ["path": "\(path)", "reason": "\(error)"])
            return nil
        }
    }

    /// The whole file, read straight into the array it is decoded from (through `Data` it was
    /// copied once more: 246 MB at a million users). Nil when it cannot be read whole.
    private static func contents(of path: String) -> [UInt8]? {
        let file = open(path, O_RDONLY)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let read = Glibc.read(file, buffer.baseAddress! + count, size - count)
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { return }
                count += read
            }
        }
        return bytes.count == size ? bytes : nil
    }

    /// Encodes and writes `snapshot` in the background, unless a write is still going on (the next
    /// one will come): false then. The state in it is a copy: the writer goes on meanwhile.
    @discardableResult
    func writeInBackground(_ snapshot: CoreSnapshot) -> Bool {
        writer.submit { [self] in
            do {
                try write(snapshot)
            } catch {
                writeFailed.store(true, ordering: .releasing)
                logger.error("could not write the core snapshot; the next start folds more of the log",
                             metadata: ["error": "\(error)"])
            }
        }
    }

    /// Whether a background write failed since the last call.
    func takeWriteFailure() -> Bool {
        writeFailed.exchange(false, ordering: .acquiring)
    }

    /// Waits for a write in progress (tests, and a clean stop).
    func waitForWrites() {
        writer.waitForWrites()
    }

    func write(_ snapshot: CoreSnapshot) throws {
        let started = ContinuousClock.now
        let data = try snapshot.encoded(sealingWith: keys)
        try DurableFile.replace(path, with: data, through: path + ".new")
        logger.info("wrote the core snapshot", metadata: [
            "position": "\(snapshot.position)", "bytes": "\(data.count)",
            "milliseconds": "\((ContinuousClock.now - started) / .milliseconds(1))",
        ])
    }
}
