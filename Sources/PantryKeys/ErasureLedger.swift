import Foundation
import PantryDomain

/// The people erased from this deployment, outside the log: one line per user, `<time>\t<userId>`
/// (`erased-users.tsv` in the data directory). The core adds a line when a deletion commits, before
/// it destroys the key; `pantry restore` reads it so that a backup taken before a deletion does not
/// bring the person back, and `pantry backup` copies it. A user id is opaque: it names nobody once
/// the key is gone, and it is what keeps that person erased.
package struct ErasureLedger: Sendable {
    package struct Erasure: Sendable, Equatable {
        package var userId: UserID
        package var erasedAt: Date
        package init(userId: UserID, erasedAt: Date) { self.userId = userId; self.erasedAt = erasedAt }
    }

    package struct Malformed: Error, CustomStringConvertible {
        package var path: String
        package var line: Int
        package var description: String { "\(path) line \(line) is not `<ISO 8601 time>\\t<user id>`: not an erasure ledger" }
    }

    package static let fileName = "erased-users.tsv"

    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// Every erasure, oldest first; none when there is no file yet. A line that does not parse
    /// fails the whole read: a ledger that is half understood would bring someone back.
    package func read() throws -> [Erasure] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var erasures: [Erasure] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, let time = try? Date(String(fields[0]), strategy: .iso8601),
                  !fields[1].isEmpty, fields[1].utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw Malformed(path: path, line: number + 1)
            }
            erasures.append(Erasure(userId: String(fields[1]), erasedAt: time))
        }
        return erasures
    }

    /// Adds the users not listed yet, and syncs the file before returning: a deletion the user was
    /// told about must survive a crash here as it survives in the log.
    package func record(_ userIds: some Collection<UserID>, at time: Date = Date()) throws {
        try record(userIds.map { Erasure(userId: $0, erasedAt: time) })
    }

    /// Adds the erasures whose users are not listed yet (another ledger's, kept with their times).
    package func record(_ erasures: [Erasure]) throws {
        guard !erasures.isEmpty else { return }
        var seen = Set(try read().map(\.userId))
        let lines = erasures.filter { seen.insert($0.userId).inserted }
            .map { "\($0.erasedAt.formatted(.iso8601))\t\($0.userId)\n" }.joined()
        guard !lines.isEmpty else { return }
        let created = !FileManager.default.fileExists(atPath: path)
        if created {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seekToEnd()
        try file.write(contentsOf: Data(lines.utf8))
        try file.synchronize()
        if created { try Self.syncDirectory(of: path) }
    }

    /// A new file's name is durable only once its directory is synced.
    private static func syncDirectory(of path: String) throws {
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        guard directory >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }
}
