import Foundation

/// The built `pantry` binary, run as a real child process.
enum PantryBinary {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `swift test` puts the test runner next to the products it built.
    static var url: URL {
        if let path = ProcessInfo.processInfo.environment["PANTRY_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("pantry")
    }

    /// Writing to a child that died (the point of some tests) must fail with EPIPE, not kill the runner.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    static func temporaryDirectory() throws -> URL {
        ignoreBrokenPipes
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `pantry ARGS` with `input` on stdin to completion; returns status and stdout lines.
    static func run(_ arguments: [String], input: Data = Data()) throws -> (status: Int32, lines: [String]) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Write on another thread: a large input must not deadlock against a full stdout pipe.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        return (process.terminationStatus, lines)
    }
}

extension String {
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}

let testPasswordHash = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"
