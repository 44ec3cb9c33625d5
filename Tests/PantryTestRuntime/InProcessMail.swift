import Foundation
import Logging
import PantryAPI
import PantryHTTP
import PantryMail

extension InProcessDeployment {
    /// The API's password reset mail, queued in the real outbox (`mail-outbox.sqlite` in the
    /// deployment's directory) whose sender is not run: a test reads what was queued there.
    package static func withMail(_ configuration: inout APIServer.Configuration, publicURL: String = "https://pantry.example") throws {
        let outbox = try MailOutbox(path: configuration.dataDirectory.appendingPathComponent(Self.outboxFile).path)
        let sender = MailSender(outbox: outbox, settings: .init(smtpURL: "smtp://127.0.0.1:9", from: "pantry@example.org"),
                                logger: Logger(label: "pantry.test.mail"))
        configuration.passwordResetMail = PasswordResetMail(post: QueuedPost(sender: sender), publicURL: publicURL, services: [])
    }

    package static let outboxFile = "mail-outbox.sqlite"

    /// What waits in the deployment's outbox.
    package func queuedMail() throws -> [MailOutbox.Queued] {
        try MailOutbox(path: directory.url.appendingPathComponent(Self.outboxFile).path).waiting()
    }
}

/// The executable's adapter (`extension MailSender: MailPost`), which tests do not link.
private struct QueuedPost: MailPost {
    let sender: MailSender
    func post(to recipient: String, subject: String, text: String) async throws {
        try await sender.post(to: recipient, subject: subject, text: text)
    }
}
