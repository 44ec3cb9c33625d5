import Crypto
import Foundation
import Logging
import PantryBus
import PantryFiles
import PantryWire

/// A fresh worker on a new host: instead of folding the whole log, it downloads a recent snapshot
/// of its projection from the core's log service, checks it, installs it as its file, and then
/// catches up from the snapshot's position over the feed as usual.
///
/// What is received is checked before it becomes the worker's file: the layout is the one this
/// worker reads, the position lies within the log (0 < position ≤ head), every chunk belongs to the
/// same copy, the whole file's SHA-256 is the manifest's, SQLite's `quick_check` passes and the
/// file's own checkpoint is the manifest's position. Anything else is refused with a log line and
/// the worker folds from zero, as it did before.
package enum SnapshotFetch {
    package struct Refusal: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// Downloads, checks and installs the snapshot of `projection` at `path` (which must not
    /// exist). Returns its manifest, or nil when there is none or it was refused (logged).
    package static func fetch(_ projection: WorkerName, layout: Int, from log: RemoteEventStore, to path: String,
                              logger: Logger) -> SnapshotManifest? {
        let clock = ContinuousClock(), started = clock.now
        let temporary = path + ".fetching"
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        // A copy replaced by its worker during the download is refused by the service; the next try takes the new one.
        for attempt in 1...3 {
            do {
                let manifest = try download(projection, layout: layout, from: log, to: temporary)
                try DurableFile.install(temporary, as: path)
                logger.info("projection fetched from the log service", metadata: [
                    "position": "\(manifest.position)", "bytes": "\(manifest.size)",
                    "seconds": "\((clock.now - started) / .seconds(1))",
                ])
                return manifest
            } catch let refused as SnapshotChunk.Refused where refused.code == LogAnswer.RefusalCode.notFound.rawValue {
                if attempt == 3 || !refused.message.contains("was replaced") {
                    logger.info("no snapshot at the log service; folding the log from 0", metadata: ["reason": "\(refused.message)"])
                    return nil
                }
            } catch let error as RemoteEventStore.Unavailable {
                // The core is down: the worker starts as before and folds once the service answers.
                logger.warning("could not ask for a snapshot; folding the log from 0", metadata: ["reason": "\(error)"])
                return nil
            } catch {
                logger.warning("snapshot refused; folding the log from 0", metadata: ["reason": "\(error)"])
                return nil
            }
        }
        return nil
    }

    private static func download(_ projection: WorkerName, layout: Int, from log: RemoteEventStore,
                                 to temporary: String) throws -> SnapshotManifest {
        try? FileManager.default.removeItem(atPath: temporary)
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        defer { try? file.close() }
        var hasher = SHA256()
        var manifest: SnapshotManifest?
        var offset: Int64 = 0
        repeat {
            let (chunk, bytes) = try log.snapshotChunk(of: projection, position: manifest?.position ?? 0, offset: offset)
            if manifest == nil {
                guard chunk.manifest.projection == projection else { throw Refusal("it is a snapshot of \(chunk.manifest.projection.rawValue)") }
                guard chunk.manifest.layout == layout else {
                    throw Refusal("its layout is \(chunk.manifest.layout); this worker reads layout \(layout)")
                }
                let head = try log.headPosition()
                guard chunk.manifest.position > 0, chunk.manifest.position <= head else {
                    throw Refusal("its position \(chunk.manifest.position) is not within the log (head \(head))")
                }
                manifest = chunk.manifest
            }
            guard chunk.manifest == manifest, chunk.offset == offset, bytes.count == chunk.bytes,
                  chunk.bytes > 0 || offset == chunk.manifest.size else {
                throw Refusal("chunk at \(offset) does not continue the download (\(chunk.json.count) bytes of header, \(bytes.count) of data)")
            }
            try file.write(contentsOf: bytes)
            hasher.update(data: bytes)
            offset += Int64(bytes.count)
        } while offset < manifest!.size
        let received = manifest!
        let sha256 = ProjectionSnapshots.hex(hasher.finalize())
        guard sha256 == received.sha256 else { throw Refusal("its SHA-256 is \(sha256), the manifest says \(received.sha256)") }
        try file.close()
        let found = try ProjectionSnapshots.inspect(temporary, verify: true)
        guard found.layout == layout, found.position == received.position else {
            throw Refusal("the file holds layout \(found.layout) at position \(found.position), the manifest says \(received.layout) at \(received.position)")
        }
        return received
    }
}
