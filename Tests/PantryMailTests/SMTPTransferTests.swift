import Curl
import Foundation
import Logging
import PantryMail
import PantryTestSupport
import Testing

/// libcurl's SMTP against a real server on loopback (aiosmtpd, from the project's Python), and the
/// sender's loop: a server that is down delays a message, which arrives once it is up.
@Suite(.serialized) struct SMTPTransferTests {
    /// aiosmtpd's debugging server on `port`, printing every message it takes.
    final class SMTPServer: @unchecked Sendable {
        let process = Process()
        private let output = Pipe()
        private let lock = NSLock()
        private var printed = Data()

        init(port: Int) throws {
            let python = ProcessInfo.processInfo.environment["PANTRY_PYTHON"]
                ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.venv/bin/python").path
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-u", "-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Debugging", "-l", "127.0.0.1:\(port)"]
            process.standardOutput = output
            output.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let chunk = handle.availableData
                guard let self, !chunk.isEmpty else { return }
                self.lock.withLock { self.printed.append(chunk) }
            }
            try process.run()
        }

        var text: String { lock.withLock { String(decoding: printed, as: UTF8.self) } }

        /// SIGKILL: a child of the test runner inherits its blocked SIGTERM (libdispatch blocks
        /// signals on its threads), which Python never unblocks.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
        }
    }

    static func freePort() throws -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func listening(_ port: Int) -> Bool {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    @Test func aMessageIsHandedToTheServerAndARefusedConnectionSaysSo() async throws {
        let port = try Self.freePort()
        let message = SMTPMessage(url: "smtp://127.0.0.1:\(port)", from: "pantry@example.org", recipients: ["ada@example.org"],
                                  message: Array("Subject: hello\r\n\r\n.a line that starts with a dot\r\n".utf8))
        #expect { try CurlEasy().send(message) } throws: { ($0 as? CurlError)?.kind == .connectionFailed }
        let server = try SMTPServer(port: port)
        defer { server.stop() }
        #expect(try await waitUntil { Self.listening(port) })
        try CurlEasy().send(message)
        // The line starting with a dot arrives whole: libcurl escaped it on the wire.
        #expect(try await waitUntil { server.text.contains("Subject: hello") && server.text.contains("\n.a line that starts with a dot\n") })
    }

    @Test func theSenderDeliversWhatWaitedOnceTheServerIsUp() async throws {
        let port = try Self.freePort()
        let outbox = try MailOutbox(path: scratchPath("outbox", ".sqlite"))
        var settings = MailSender.Settings(smtpURL: "smtp://127.0.0.1:\(port)", from: "pantry@example.org")
        settings.firstRetry = .milliseconds(100)
        settings.maxRetry = .milliseconds(400)
        let sender = MailSender(outbox: outbox, settings: settings, logger: Logger(label: "test"))
        try await sender.post(to: "ada@example.org", subject: "Set a new Pantry password", text: "the link")
        let running = Task { try await sender.run() }
        defer { running.cancel() }
        #expect(try await waitUntil { try outbox.waiting().first?.attempts ?? 0 >= 2 })
        let server = try SMTPServer(port: port)
        defer { server.stop() }
        #expect(try await waitUntil { server.text.contains("Subject: Set a new Pantry password") })
        #expect(try await waitUntil { try outbox.waiting().isEmpty })
    }
}
