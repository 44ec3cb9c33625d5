import Curl
import Foundation
import PantryTestSupport
import Testing

@Suite struct CurlTests {
    let upstream: FakeUpstream
    let client = HTTPClient()

    init() throws {
        upstream = try FakeUpstream()
    }

    @Test func statusAndBodyAreReturned() async throws {
        let response = try await client.send(HTTPRequest(url: "\(upstream.baseURL)/test/status/418"))
        #expect(response.status == 418)
        #expect(String(decoding: response.body, as: UTF8.self) == "status body")
        #expect(response.totalTime > 0)
    }

    @Test func requestHeadersAreSentAndResponseHeadersLookedUpIgnoringCase() async throws {
        let request = HTTPRequest(url: "\(upstream.baseURL)/test/headers", headers: [("X-Pantry-Test", "hello")])
        let response = try await client.send(request)
        #expect(response.headers["x-custom-header"] == "Custom Value")
        #expect(response.headers["X-CUSTOM-HEADER"] == "Custom Value")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["missing"] == nil)
        let echoed = try JSONDecoder().decode([String: String].self, from: response.body)
        #expect(echoed["x-pantry-test"] == "hello")
    }

    @Test func gzipBodyIsDecoded() async throws {
        let response = try await client.send(HTTPRequest(url: "\(upstream.baseURL)/test/gzip"))
        #expect(response.headers["content-encoding"] == "gzip")
        #expect(response.body == Data(String(repeating: "pantry ", count: 1000).utf8))
    }

    @Test func redirectsAreNotFollowedUnlessAsked() async throws {
        let plain = try await client.send(HTTPRequest(url: "\(upstream.baseURL)/test/redirect"))
        #expect(plain.status == 302)
        let followed = try await client.send(HTTPRequest(url: "\(upstream.baseURL)/test/redirect", followRedirects: true))
        #expect(followed.status == 200)
    }

    @Test func slowAnswerIsATimeout() async throws {
        let request = HTTPRequest(url: "\(upstream.baseURL)/test/slow?seconds=3", timeout: 0.5)
        let error = await #expect(throws: CurlError.self) { try await client.send(request) }
        #expect(error?.kind == .timeout)
        #expect(error?.code == 28)
        #expect(error?.message.lowercased().contains("timeout") == true)
    }

    @Test func refusedConnectionIsAConnectionFailure() async throws {
        upstream.stop()
        let error = await #expect(throws: CurlError.self) {
            try await client.send(HTTPRequest(url: "\(upstream.baseURL)/test/status/200"))
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.code == 7)
        #expect(error?.message.isEmpty == false)
    }

    @Test func nonHTTPSchemesAreRefused() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await client.send(HTTPRequest(url: "file:///etc/passwd"))
        }
        #expect(error?.kind == .other)
    }

    @Test func oneHandleServesManySequentialRequests() throws {
        let easy = CurlEasy()
        for _ in 0..<20 {
            let response = try easy.perform(HTTPRequest(url: "\(upstream.baseURL)/test/status/201"))
            #expect(response.status == 201)
        }
    }
}

/// HTTPS against a self-signed server, its certificates made by `ops/hosts/self-signed-cert`.
@Suite struct CurlTLSTests {
    /// A certificate and key for `names` in a fresh directory.
    static func certificate(for names: [String]) throws -> (certificate: String, key: String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = URL(fileURLWithPath: scratchPath("tls"))
        let process = Process()
        process.executableURL = root.appendingPathComponent("ops/hosts/self-signed-cert")
        process.arguments = [directory.path] + names
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return (directory.appendingPathComponent("cert.pem").path, directory.appendingPathComponent("key.pem").path)
    }

    @Test func aServerIsTrustedThroughTheGivenCertificateAndOnlyThat() throws {
        let served = try Self.certificate(for: ["127.0.0.1"])
        let other = try Self.certificate(for: ["127.0.0.1"])
        let upstream = try FakeUpstream(tls: served)
        let easy = CurlEasy()
        for _ in 0..<3 {
            let response = try easy.perform(HTTPRequest(url: "\(upstream.baseURL)/test/status/201", trustedCertificates: served.certificate))
            #expect(response.status == 201)
        }
        // The system's anchors do not vouch for it, nor does another self-signed certificate.
        for trusted in [nil, other.certificate] {
            let error = #expect(throws: CurlError.self) {
                try easy.perform(HTTPRequest(url: "\(upstream.baseURL)/test/status/201", trustedCertificates: trusted))
            }
            #expect(error?.code == 60, "CURLE_PEER_FAILED_VERIFICATION")
        }
    }

    @Test func aTrustedCertificateForAnotherNameIsRefused() throws {
        let served = try Self.certificate(for: ["pantry.example.org"])
        let upstream = try FakeUpstream(tls: served)
        let error = #expect(throws: CurlError.self) {
            try CurlEasy().perform(HTTPRequest(url: "\(upstream.baseURL)/test/status/200", trustedCertificates: served.certificate))
        }
        #expect(error?.code == 60, "CURLE_PEER_FAILED_VERIFICATION")
        #expect(error?.message.contains("127.0.0.1") == true)
    }
}
