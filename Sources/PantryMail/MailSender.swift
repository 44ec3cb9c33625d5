import Curl
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Sends what waits in the `MailOutbox` to the SMTP server, oldest first: at once when a message
/// is posted, and again after a failure with a growing wait (`firstRetry`, doubled up to
/// `maxRetry`), so that a server that is down is asked once in a while, not flooded. A message is
/// removed once the server accepted it, or once it is older than `giveUpAfter` (a reset link is
/// of no use after its 30 minutes). What it logs names a message by its id in the outbox, never
/// by its address or its content.
package final class MailSender: Service, Sendable {
    package struct Settings: Sendable {
        /// `smtp://host:port` or `smtps://host:port`, with a user and password if the server wants them.
        package var smtpURL: String
        /// The sender's address (`From:` and the envelope's).
        package var from: String
        package var fromName = "Pantry"
        package var firstRetry: Duration = .seconds(1)
        package var maxRetry: Duration = .seconds(60)
        /// ms.
        package var giveUpAfter: Int64 = 30 * 60_000
        package var trustedCertificates: String?

        package init(smtpURL: String, from: String) { self.smtpURL = smtpURL; self.from = from }
    }

    package let outbox: MailOutbox
    private let settings: Settings
    private let logger: Logger
    private let wake = Wake()

    package init(outbox: MailOutbox, settings: Settings, logger: Logger) {
        self.outbox = outbox
        self.settings = settings
        self.logger = logger
    }

    /// Queues a message to `recipient`, durably (on NIO's pool for blocking work: the write waits
    /// for the disk, never on a thread that serves requests), and wakes the loop. Throws when the address cannot be a header's or the outbox cannot
    /// be written: nothing is then queued.
    package func post(to recipient: String, subject: String, text: String) async throws {
        guard MailMessage.isPlainAddress(recipient) else { throw MailMessage.Refused("the recipient is not a plain address") }
        let now = Self.now()
        let message = MailMessage.compose(from: settings.from, fromName: settings.fromName, to: recipient, subject: subject,
                                          text: text, at: Date(timeIntervalSince1970: Double(now) / 1000))
        let outbox = self.outbox
        let id = try await NIOThreadPool.singleton.runIfActive { try outbox.add(recipient: recipient, message: message, now: now) }
        logger.info("mail queued", metadata: ["mail": "\(id)"])
        wake.signal()
    }

    /// Sends on a thread of its own: a transfer blocks for up to its timeout (30 s), which NIO's
    /// shared pool should not be held for.
    package func run() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let wait = (try? await pool.runIfActive { self.sendDue() }) ?? self.settings.maxRetry
                await self.wake.wait(upTo: wait)
            }
        }
    }

    /// How many messages one round sends at most: a shutdown waits for the round it meets.
    private static let perRound = 10
    /// How long a message taken for sending is left to this sender (ms): longer than a transfer's timeout.
    private static let lease: Int64 = 120_000

    /// Sends the messages due, on the sender's thread (libcurl and SQLite block); returns how long
    /// until the next one is due.
    private func sendDue() -> Duration {
        do {
            for queued in try outbox.claimDue(at: Self.now(), lease: Self.lease, limit: Self.perRound) {
                attempt(queued)
            }
            guard let next = try outbox.nextDue() else { return .seconds(3600) }
            return .milliseconds(max(0, next - Self.now()))
        } catch {
            logger.error("the mail outbox cannot be read", metadata: ["error": "\(error)"])
            return settings.maxRetry
        }
    }

    private func attempt(_ queued: MailOutbox.Queued) {
        do {
            if Self.now() - queued.queuedAt > settings.giveUpAfter {
                try outbox.remove(queued.id)
                logger.warning("mail dropped: not sent in time", metadata: ["mail": "\(queued.id)", "attempts": "\(queued.attempts)"])
                return
            }
            var mail = SMTPMessage(url: settings.smtpURL, from: settings.from, recipients: [queued.recipient], message: queued.message)
            mail.trustedCertificates = settings.trustedCertificates
            do {
                try CurlEasy().send(mail)
            } catch {
                let attempts = queued.attempts + 1
                let wait = min(settings.firstRetry * (1 << min(attempts - 1, 30)), settings.maxRetry)
                let waitMilliseconds = Int64(wait / .milliseconds(1))
                try outbox.postpone(queued.id, attempts: attempts, until: Self.now() + waitMilliseconds)
                // libcurl's reason without the server's words, which may quote the address.
                logger.warning("mail not sent; retrying", metadata: [
                    "mail": "\(queued.id)", "attempts": "\(attempts)", "retryInSeconds": "\(waitMilliseconds / 1000)",
                    "reason": "\(error.message.prefix { $0 != ":" }) (curl \(error.code))",
                ])
                return
            }
            try outbox.remove(queued.id)
            logger.info("mail sent", metadata: ["mail": "\(queued.id)", "attempts": "\(queued.attempts + 1)"])
        } catch {
            logger.error("the mail outbox cannot be written", metadata: ["mail": "\(queued.id)", "error": "\(error)"])
        }
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// How the loop sleeps: until it is signalled (a message posted), its time is up, or it is cancelled.
private final class Wake: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else { state.signalled = true; return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func wait(upTo delay: Duration) async {
        let timer = Task { [self] in
            // Cancelled once the wait is over: then it wakes nobody.
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            signal()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.signalled || Task.isCancelled { state.signalled = false; return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
