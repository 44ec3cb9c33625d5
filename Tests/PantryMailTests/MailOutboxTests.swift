import Foundation
import Logging
import PantryMail
import PantryTestSupport
import Testing

/// The outbox: a message stays until it is sent, across a reopening (an API restart), and one
/// sender at a time takes it.
@Suite struct MailOutboxTests {
    @Test func aMessageWaitsAcrossAReopeningAndOneSenderAtATimeTakesIt() throws {
        let path = scratchPath("outbox", ".sqlite")
        let id = try MailOutbox(path: path).add(recipient: "ada@example.org", message: Array("Subject: hi\r\n\r\nhello\r\n".utf8), now: 1_000)
        let outbox = try MailOutbox(path: path)
        #expect(try outbox.waiting().map(\.recipient) == ["ada@example.org"])
        #expect(try outbox.claimDue(at: 1_000, lease: 500, limit: 10).map(\.id) == [id])
        // Taken: another sender finds nothing until the lease is over.
        #expect(try outbox.claimDue(at: 1_499, lease: 500, limit: 10).isEmpty)
        #expect(try outbox.claimDue(at: 1_500, lease: 500, limit: 10).map(\.id) == [id])
        try outbox.postpone(id, attempts: 1, until: 5_000)
        #expect(try outbox.nextDue() == 5_000)
        #expect(try outbox.claimDue(at: 4_999, lease: 500, limit: 10).isEmpty)
        #expect(try outbox.claimDue(at: 5_000, lease: 500, limit: 10).first?.attempts == 1)
        try outbox.remove(id)
        #expect(try outbox.waiting().isEmpty && outbox.nextDue() == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aRecipientThatCouldBreakTheHeadersIsRefusedAndNothingQueued() async throws {
        let outbox = try MailOutbox(path: scratchPath("outbox", ".sqlite"))
        let sender = MailSender(outbox: outbox, settings: .init(smtpURL: "smtp://127.0.0.1:9", from: "pantry@example.org"),
                                logger: Logger(label: "test"))
        for bad in ["ada@example.org\r\nBcc: eve@example.org", "<ada@example.org>", "ada", "a@b@c.org", "ada@example.org,eve@example.org"] {
            await #expect(throws: MailMessage.Refused.self) { try await sender.post(to: bad, subject: "s", text: "t") }
        }
        #expect(try outbox.waiting().isEmpty)
        try await sender.post(to: "ada@example.org", subject: "Übung", text: "one\ntwo\n.\n")
        let message = String(decoding: try #require(try outbox.waiting().first).message, as: UTF8.self)
        #expect(message.contains("From: Pantry <pantry@example.org>\r\nTo: <ada@example.org>\r\n"))
        #expect(message.contains("Subject: =?utf-8?B?\(Data("Übung".utf8).base64EncodedString())?=\r\n"))
        #expect(message.hasSuffix("\r\n\r\none\r\ntwo\r\n.\r\n\r\n"))
    }
}
