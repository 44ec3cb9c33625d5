import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PantryDomain
import PantryEventStore
import Synchronization

/// Which command ids the log may hold, kept in memory so that the core asks the log's index only
/// about ids it may have accepted before. A new command, which nearly every command is, then
/// needs no lookup (the lookup was 6-7% of the core's CPU per new durable increment;
/// docs/benchmarks/log.md).
///
/// The ids already in the log at start go into a filter of their own: those after the core's
/// snapshot as the start folds them, those before it read in the background, in short read
/// transactions so that the WAL can still start over; until that filter is in, every id is asked
/// of the log. The ids the core appends go into filters that double as they
/// fill. Two bytes per id in all, up to `maxBytes`; past that the filters are let go and every id
/// is asked of the log, as before they existed. Not thread-safe: the core's one thread owns it.
final class AcceptedCommandFilter {
    /// Positions read per read transaction, and the pause between two (as
    /// `SQLiteEventStore.countsByType` reads).
    static let readChunk = 5_000
    static let readPause: TimeInterval = 0.001
    private let maxBytes: Int
    /// The first filter of appended ids holds this many (2 MB by default).
    private let minimumCapacity: Int
    private let logger: Logger
    private var layers: [BloomFilter] = []
    private let reading = BackgroundRead()
    private var complete = false
    private var abandoned = false

    init(maxBytes: Int, minimumCapacity: Int = 1 << 20, logger: Logger) {
        self.maxBytes = maxBytes
        self.minimumCapacity = minimumCapacity
        self.logger = logger
    }

    var bytes: Int { layers.reduce(0) { $0 + $1.bytes } }

    /// The filter for the ids of a log whose head is `head` (a command has one event or more:
    /// `head` ids at most), for the start's fold to fill; nil when the filter is off or too small.
    func filterForLog(head: Int64) -> BloomFilter? {
        guard maxBytes > 0 else {
            abandon("the command-id filter is off")
            return nil
        }
        let logged = Int(clamping: head)
        guard BloomFilter.bytes(capacity: logged) + BloomFilter.bytes(capacity: minimumCapacity) <= maxBytes else {
            abandon("the log's \(head) events may hold more command ids than the filter's \(maxBytes) bytes")
            return nil
        }
        return BloomFilter(capacity: logged)
    }

    /// Takes `logged`, which holds the ids the fold saw after `snapshot`, and reads the ids of
    /// positions `1...snapshot` into it in the background (none when the fold read the whole log).
    func start(_ logged: BloomFilter?, readingThrough snapshot: Int64, of store: any EventStore) {
        guard let logged else { return }
        layers = [BloomFilter(capacity: minimumCapacity)]
        guard snapshot > 0 else {
            if logged.count > 0 { layers.insert(logged, at: 0) }
            complete = true
            return
        }
        let logger = logger
        let reading = reading
        reading.done.lock()
        reading.done.unlock(withValue: false)
        // Blocking reads, on NIO's pool for blocking work.
        NIOThreadPool.singleton.submit { _ in
            defer {
                reading.done.lock()
                reading.done.unlock(withValue: true)
            }
            let started = ContinuousClock.now
            do {
                let filter = try Self.read(store, through: snapshot, into: logged)
                reading.filter.withLock { $0 = filter }
                logger.info("read the command ids before the snapshot", metadata: [
                    "position": "\(snapshot)", "bytes": "\(filter.bytes)",
                    "milliseconds": "\((ContinuousClock.now - started) / .milliseconds(1))",
                ])
            } catch {
                reading.failure.withLock { $0 = "\(error)" }
            }
        }
    }

    private static func read(_ store: any EventStore, through head: Int64, into filter: BloomFilter) throws -> BloomFilter {
        var filter = filter
        var position: Int64 = 0
        var previous: CommandID?
        while position < head {
            let events = try store.read(after: position, limit: min(readChunk, Int(head - position)))
            guard let last = events.last else { break }
            // A command's events are next to each other: each id is counted once.
            for event in events where event.metadata.commandId != previous {
                filter.insert(hash(event.metadata.commandId))
                previous = event.metadata.commandId
            }
            position = last.position
            // Not a poll: a moment with no read transaction, so that a RESTART checkpoint can start the WAL over.
            Thread.sleep(forTimeInterval: readPause)
        }
        return filter
    }

    /// Waits for the background read (tests, and benchmarks that want it done).
    func waitForReading() {
        reading.done.lock(whenValue: true)
        reading.done.unlock()
        takeWhatWasRead()
    }

    /// The ids of `ids` that the log may hold; only those need asking.
    func mayHaveAccepted(_ ids: [CommandID]) -> [CommandID] {
        takeWhatWasRead()
        guard complete, !abandoned else { return ids }
        return ids.filter { id in
            let hash = Self.hash(id)
            return layers.contains { $0.mayContain(hash) }
        }
    }

    /// Ids now in the log.
    func insert(_ ids: [CommandID]) {
        guard !abandoned, !layers.isEmpty else { return }
        for id in ids {
            if layers[layers.count - 1].isFull {
                let next = BloomFilter(capacity: 2 * layers[layers.count - 1].capacity)
                guard bytes + next.bytes <= maxBytes else {
                    abandon("the command-id filter reached its \(maxBytes) bytes")
                    return
                }
                layers.append(next)
                logger.info("the command-id filter grew", metadata: ["bytes": "\(bytes)", "capacity": "\(next.capacity)"])
            }
            layers[layers.count - 1].insert(Self.hash(id))
        }
    }

    private func takeWhatWasRead() {
        guard !complete, !abandoned else { return }
        if let failure = reading.failure.withLock({ $0.take() }) {
            abandon("could not read the log's command ids (\(failure))")
            return
        }
        guard let read = reading.filter.withLock({ $0.take() }) else { return }
        // First: appended ids go into the last filter.
        layers.insert(read, at: 0)
        complete = true
    }

    /// The log's ids up to the head at start once the background read has them, or why it could not.
    private final class BackgroundRead: Sendable {
        let filter = Mutex<BloomFilter?>(nil)
        let failure = Mutex<String?>(nil)
        /// False while the read is under way.
        let done = ConditionLock(value: true)
    }

    private func abandon(_ reason: String) {
        abandoned = true
        layers = []
        logger.warning("\(reason); every command id is asked of the log from now on")
    }

    /// SipHash with this process's seed, of the id's bytes as the log's index compares them: the
    /// same id always hashes the same here, and nobody outside can choose ids that collide.
    static func hash(_ id: CommandID) -> UInt64 {
        var hasher = Hasher()
        var id = id
        id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
