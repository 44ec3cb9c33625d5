import Curl
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs Tests/Fixtures/fake_upstream.py on a free 127.0.0.1 port for the life of this object: the
/// upstream of the fetch worker's tests and the server of libcurl's.
package final class FakeUpstream: @unchecked Sendable {
    package let port: Int
    private let process: Process

    private let scheme: String
    /// After `stop`, a socket bound to the port and not listening: connections to it are refused,
    /// and no other test's server, made meanwhile by the suites running in parallel, can take the
    /// port and answer in its place (a stopped upstream once "answered" with another test's data).
    private var portHolder: Int32 = -1
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
        holdPort()
    }

    private func holdPort() {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard holder >= 0 else { return }
        var yes: Int32 = 1
        setsockopt(holder, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if bound == 0 { portHolder = holder } else { close(holder) }
    }

    deinit {
        stop()
        if portHolder >= 0 { close(portHolder) }
    }
}
