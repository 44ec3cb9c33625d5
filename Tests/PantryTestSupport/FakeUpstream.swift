import Curl
import Foundation

/// Runs Tests/Fixtures/fake_upstream.py on a free 127.0.0.1 port for the life of this object: the
/// upstream of the fetch worker's tests and the server of libcurl's.
package final class FakeUpstream: @unchecked Sendable {
    package let port: Int
    private let process: Process

    private let scheme: String
    package var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    /// With `tls`, PEM files of a certificate and its key, it serves HTTPS.
    package init(tls: (certificate: String, key: String)? = nil) throws {
        scheme = tls == nil ? "http" : "https"
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fake_upstream.py")
        let stdout = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "0"] + (tls.map { [$0.certificate, $0.key] } ?? [])
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

    /// Upstream requests received since the last reset, control endpoints excluded.
    package func count() async throws -> Int {
        let response = try await HTTPClient().send(HTTPRequest(url: "\(baseURL)/_count"))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return object?["total"] as? Int ?? -1
    }

    /// Points the upstream has charged today.
    package func used() async throws -> Double {
        let response = try await HTTPClient().send(HTTPRequest(url: "\(baseURL)/_count"))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return (object?["used"] as? NSNumber)?.doubleValue ?? -1
    }

    /// Switches the failure mode; see fake_upstream.py for the names and options.
    package func mode(_ mode: String, _ options: String = "") async throws {
        _ = try await HTTPClient().send(HTTPRequest(url: "\(baseURL)/_mode?set=\(mode)\(options)"))
    }

    package func stop() {
        guard process.isRunning else { return }
        // SIGKILL, because Foundation starts children with SIGTERM blocked on Linux.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        stop()
    }
}
