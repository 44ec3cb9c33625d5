import Foundation

/// Runs Tests/Fixtures/fake_upstream.py on a free 127.0.0.1 port for the life of this object.
final class FakeUpstream: @unchecked Sendable {
    let port: Int
    private let process: Process

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fake_upstream.py")
        let stdout = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "0"]
        process.standardOutput = stdout
        try process.run()
        var line = Data()
        while let byte = try stdout.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let text = String(data: line, encoding: .utf8), text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            throw NSError(domain: "FakeUpstream", code: 1, userInfo: [NSLocalizedDescriptionKey: "no port from fake upstream"])
        }
        self.port = port
    }

    func stop() {
        guard process.isRunning else { return }
        // SIGKILL, because Foundation starts children with SIGTERM blocked on Linux.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        stop()
    }
}
