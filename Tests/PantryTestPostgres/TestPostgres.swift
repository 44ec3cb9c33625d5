import Foundation
import PantryPostgresLog

/// The PostgreSQL server of the tests: `PANTRY_TEST_POSTGRES` (ops/test starts one with
/// ops/postgres-cluster), or else one this process starts with the same script and stops at exit.
/// There is no skipping: without a server the PostgreSQL cases fail.
package enum TestPostgres {
    package static let server: Result<PostgresLogAddress, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["PANTRY_TEST_POSTGRES"], !url.isEmpty {
            return try PostgresLogAddress(url)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: clusterScript)
        process.arguments = ["start", "--no-fsync"]
        // A file, not a pipe: the server the script starts inherits the descriptor, and a pipe
        // would never reach its end while the server runs.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-postgres-\(UUID().uuidString).out").path
        guard FileManager.default.createFile(atPath: outputPath, contents: nil), let output = FileHandle(forWritingAtPath: outputPath) else {
            throw ClusterFailed(status: -1)
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        let lines = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self).split(separator: "\n")
        guard process.terminationStatus == 0, lines.count == 2 else {
            throw ClusterFailed(status: process.terminationStatus)
        }
        startedDirectory = String(lines[1])
        atexit {
            guard let directory = TestPostgres.startedDirectory else { return }
            let stop = Process()
            stop.executableURL = URL(fileURLWithPath: "/bin/sh")
            stop.arguments = ["-c", "\"$0\" stop \"$1\"", TestPostgres.clusterScript, directory]
            try? stop.run()
            stop.waitUntilExit()
        }
        return try PostgresLogAddress(String(lines[0]))
    }

    struct ClusterFailed: Error, CustomStringConvertible {
        var status: Int32
        var description: String { "ops/postgres-cluster start failed (status \(status)); is PostgreSQL installed (ops/setup)?" }
    }

    nonisolated(unsafe) static var startedDirectory: String?
    static let clusterScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ops/postgres-cluster").path

    /// Runs `sql` with psql on the test server's `database` (a session of its own, for what a
    /// test does to the log's sessions from outside), and answers its rows.
    @discardableResult
    package static func psql(_ sql: String, database: String = "postgres") throws -> String {
        var address = try server.get()
        address.database = database
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-qAt", "-v", "ON_ERROR_STOP=1", address.url, "-c", sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let rows = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ClusterFailed(status: process.terminationStatus) }
        return String(decoding: rows, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A database of its own for one test, so that the suites run in parallel.
    package static func freshDatabase() throws -> PostgresLogAddress {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return try PostgresEventStore.createDatabase(named: name, server: server.get())
    }
}
