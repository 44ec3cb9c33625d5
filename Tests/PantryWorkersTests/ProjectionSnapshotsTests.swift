import Foundation
import PantryProjections
import PantryWire
import PantryWorkers
import Testing

/// The copies a worker leaves for the log service, on real SQLite files.
@Suite struct ProjectionSnapshotsTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A carts projection at position 5 in a fresh folder, and the place its copies go.
    private func cartsAtFive() throws -> (dir: URL, store: ProjectionStore, place: URL, snapshots: ProjectionSnapshots) {
        let dir = try folder()
        let store = try ProjectionStore.open(name: "carts", directory: dir.appendingPathComponent("projections"), keys: nil)
        try store.apply([], after: 0, through: 5)
        let place = dir.appendingPathComponent("snapshots")
        return (dir, store, place, try ProjectionSnapshots(directory: place, projection: .carts, layout: store.projection.layoutVersion))
    }

    private func copies(_ snapshots: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: snapshots.path).sorted()
    }

    @Test("A copy is published with a manifest that describes its bytes; an unchanged file is not copied again, a moved one replaces the copy")
    func publishesWhatMoved() throws {
        let (dir, store, place, snapshots) = try cartsAtFive()
        defer { try? FileManager.default.removeItem(at: dir) }

        let first = try #require(try snapshots.publish(from: store.path))
        #expect(first.position == 5 && first.layout == store.projection.layoutVersion)
        let bytes = try Data(contentsOf: place.appendingPathComponent(first.fileName))
        #expect(Int64(bytes.count) == first.size)
        #expect(try SnapshotManifest(json: Data(contentsOf: place.appendingPathComponent("carts.json"))) == first)
        #expect(try snapshots.publish(from: store.path) == nil)

        try store.apply([], after: 5, through: 9)
        let second = try #require(try snapshots.publish(from: store.path))
        #expect(second.position == 9 && second.sha256 != first.sha256)
        #expect(try copies(place) == ["carts-9.sqlite", "carts.json"])
    }

    @Test("A deletion the worker applied removes every copy, a copy older than it is never published, and a worker's start removes what an earlier run left")
    func erasureRemovesCopies() throws {
        let (dir, store, place, snapshots) = try cartsAtFive()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try snapshots.publish(from: store.path)
        #expect(try copies(place) == ["carts-5.sqlite", "carts.json"])

        snapshots.erased(through: 7)
        #expect(try copies(place) == [])
        // The file is still at 5 (a copy read before the deletion was written): not published.
        #expect(try snapshots.publish(from: store.path) == nil)
        #expect(try copies(place) == [])
        try store.apply([], after: 5, through: 8)
        #expect(try snapshots.publish(from: store.path)?.position == 8)

        _ = try ProjectionSnapshots(directory: place, projection: .carts, layout: store.projection.layoutVersion)
        #expect(try copies(place) == [])
    }
}
