import Crypto
import Foundation
import GRDB
import PantryFiles
import PantryWire
import Synchronization

/// The consistent copy of one projection that its worker leaves in the snapshots directory, where
/// the core's log service serves it to a worker starting on a new host (`LogRead.snapshot`).
///
/// A copy is `VACUUM INTO` from a read-only connection: a consistent state at the copy's
/// checkpoint, taken beside the worker's writes (WAL), rebuilt without free pages, so rows deleted
/// before the copy are not in it. The manifest (`<projection>.json`, the one file the service
/// reads first) is replaced only after the copy it names is synced, so it never names a part.
///
/// Erasure: a copy holds the rows of a person deleted after its checkpoint. The worker calls
/// `erased(through:)` once it applied a `UserDeleted`, which removes every copy, and a copy taken
/// before that position is thrown away instead of being published.
package final class ProjectionSnapshots: Sendable {
    package let directory: URL
    package let projection: WorkerName
    private let layout: Int
    /// The last deletion applied, and the position of the copy published (0: none).
    private let state = Mutex<(erasedThrough: Int64, published: Int64)>((0, 0))

    /// Removes what an earlier run left: it may predate a deletion applied just before a crash.
    package init(directory: URL, projection: WorkerName, layout: Int) throws {
        self.directory = directory
        self.projection = projection
        self.layout = layout
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try removeCopies()
    }

    private var manifestPath: String { directory.appendingPathComponent(SnapshotManifest.manifestName(projection)).path }

    private func removeCopies() throws {
        let manager = FileManager.default
        try? manager.removeItem(atPath: manifestPath)
        for name in try manager.contentsOfDirectory(atPath: directory.path)
        where name.hasPrefix("\(projection.rawValue)-") || name.hasPrefix("\(projection.rawValue).") {
            try? manager.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Copies the projection file at `path` and publishes the copy, unless its checkpoint has not
    /// moved since the last one or a deletion overtook it (nil then).
    package func publish(from path: String) throws -> SnapshotManifest? {
        let temporary = directory.appendingPathComponent("\(projection.rawValue).copying").path
        try? FileManager.default.removeItem(atPath: temporary)
        var configuration = Configuration()
        configuration.readonly = true
        let source = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? source.close() }
        // An idle worker's file is not copied again: hundreds of MB every few minutes for nothing.
        let current = try source.read { db in try Int64.fetchOne(db, sql: "SELECT position FROM checkpoint WHERE id = 1") ?? 0 }
        guard current > state.withLock({ $0.published }) else { return nil }
        try source.inDatabase { try $0.execute(sql: "VACUUM INTO ?", arguments: [temporary]) }
        do {
            let position = try Self.checkpoint(ofCopy: temporary)
            guard position > state.withLock({ $0.published }) else {
                try? FileManager.default.removeItem(atPath: temporary)
                return nil
            }
            let (size, sha256) = try Self.digest(temporary)
            let manifest = SnapshotManifest(projection: projection, layout: layout, position: position, size: size, sha256: sha256)
            return try state.withLock { state in
                guard position >= state.erasedThrough else {
                    try? FileManager.default.removeItem(atPath: temporary)
                    return nil
                }
                try DurableFile.install(temporary, as: directory.appendingPathComponent(manifest.fileName).path)
                try DurableFile.replace(manifestPath, with: manifest.json, through: manifestPath + ".new")
                for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
                where name.hasPrefix("\(projection.rawValue)-") && name != manifest.fileName {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
                }
                state.published = position
                return manifest
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// The worker applied a `UserDeleted` at `position`: no copy older than it may stay or be published.
    package func erased(through position: Int64) {
        state.withLock { state in
            state.erasedThrough = max(state.erasedThrough, position)
            state.published = 0
            try? removeCopies()
        }
    }

    /// The checkpoint in a projection file (a copy, or one downloaded), with its layout.
    static func checkpoint(ofCopy path: String) throws -> Int64 {
        try inspect(path).position
    }

    /// Opens `path` read-only and reads its layout (`user_version`) and checkpoint; `verify` also
    /// runs SQLite's `quick_check` over every page.
    static func inspect(_ path: String, verify: Bool = false) throws -> (layout: Int, position: Int64) {
        var configuration = Configuration()
        configuration.readonly = true
        let copy = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? copy.close() }
        return try copy.read { db in
            if verify {
                let result = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard result == ["ok"] else { throw SnapshotFetch.Refusal("SQLite finds it damaged: \(result.prefix(3).joined(separator: "; "))") }
            }
            guard try db.tableExists("checkpoint") else { throw SnapshotFetch.Refusal("it has no checkpoint table") }
            let layout = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            return (layout, try Int64.fetchOne(db, sql: "SELECT position FROM checkpoint WHERE id = 1") ?? 0)
        }
    }

    /// The file's size and SHA-256 (lowercase hex), read in 1 MiB pieces.
    static func digest(_ path: String) throws -> (size: Int64, sha256: String) {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? file.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let piece = try file.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
            size += Int64(piece.count)
        }
        return (size, hex(hasher.finalize()))
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
