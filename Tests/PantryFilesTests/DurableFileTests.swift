import Foundation
import PantryFiles
import Testing

@Suite struct DurableFileTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("A replaced file holds the new bytes whole, and no temporary file is left")
    func replacesWhole() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("snapshot").path
        try DurableFile.replace(path, with: Data("old".utf8), through: path + ".new")
        try DurableFile.replace(path, with: Data("the new one".utf8), through: path + ".new")
        #expect(FileManager.default.contents(atPath: path) == Data("the new one".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["snapshot"])
    }

    @Test("A write that fails leaves the old file as it was and no temporary file")
    func aFailedWriteLeavesTheOldFile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("snapshot").path
        try DurableFile.replace(path, with: Data("old".utf8), through: path + ".new")
        // The rename fails: the temporary is in a folder of its own, and `path` is replaced by a
        // folder that is not empty, which rename(2) refuses.
        let blocked = dir.appendingPathComponent("blocked").path
        try FileManager.default.createDirectory(atPath: blocked + "/inside", withIntermediateDirectories: true)
        #expect(throws: (any Error).self) {
            try DurableFile.replace(blocked, with: Data("new".utf8), through: path + ".new")
        }
        #expect(FileManager.default.contents(atPath: path) == Data("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    }

    @Test("An installed file (written by someone else, a download say) replaces the old one whole, and one that cannot be moved is removed")
    func installsWhole() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("leaderboard.sqlite").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try Data("the downloaded copy".utf8).write(to: URL(fileURLWithPath: path + ".fetching"))
        try DurableFile.install(path + ".fetching", as: path)
        #expect(FileManager.default.contents(atPath: path) == Data("the downloaded copy".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["leaderboard.sqlite"])
        let blocked = dir.appendingPathComponent("blocked").path
        try FileManager.default.createDirectory(atPath: blocked + "/inside", withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: path + ".fetching"))
        #expect(throws: (any Error).self) { try DurableFile.install(path + ".fetching", as: blocked) }
        #expect(!FileManager.default.fileExists(atPath: path + ".fetching"))
        #expect(FileManager.default.contents(atPath: path) == Data("the downloaded copy".utf8))
    }
}
