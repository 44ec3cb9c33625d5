import Crypto
import Foundation
import Hummingbird
import PantryDomain
import PantryJSON
import PantryTokens
import ServiceLifecycle

/// Where the API leaves a message for the person: written durably before the request is answered,
/// and sent by a loop of its own (the executable's `MailSender`, over libcurl, which the API does
/// not link).
package protocol MailPost: Sendable {
    func post(to recipient: String, subject: String, text: String) async throws
}

/// How reset links reach people: nil in the configuration when no SMTP server is given, and a
/// request for one is then answered 503 `mail_unavailable`.
package struct PasswordResetMail: Sendable {
    package var post: any MailPost
    /// Where people reach the web app (`PANTRY_PUBLIC_URL`): the link is this with `/#/reset?token=...`.
    package var publicURL: String
    /// What sends the messages (the sender loop): run before the HTTP server, stopped after it.
    package var services: [any Service]

    package init(post: any MailPost, publicURL: String, services: [any Service]) {
        self.post = post; self.publicURL = publicURL; self.services = services
    }

    func link(_ token: String) -> String {
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/#/reset?token=" + token
    }
}

/// A reset link's token: the account's id, a dot and 32 random bytes (base64url). Only its HMAC
/// under a key derived from the token key (`digest`) reaches the core and the log, so neither the
/// log nor a copy of it can be used to set anyone's password; the id tells the core whose link it is.
struct PasswordResetTokens: Sendable {
    private let key: [UInt8]

    init(tokenKey: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: tokenKey, info: Data("pantry password reset tokens".utf8), outputByteCount: 32)
            .withUnsafeBytes { Array($0) }
    }

    func make(for userId: UserID) -> (token: String, digest: String) {
        let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        let token = userId + "." + Self.base64URL(secret)
        return (token, digest(token))
    }

    /// The account and the digest of a token as a link carries it, or nil when it cannot be one.
    func parse(_ token: String) -> (userId: UserID, digest: String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 128, parts.count == 2, parts[1].utf8.count == 43,
              parts[1].utf8.allSatisfy({ Self.base64URLBytes.contains($0) }),
              let userId = try? Validate.userId(String(parts[0])) else { return nil }
        return (userId, digest(token))
    }

    private func digest(_ token: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: SymmetricKey(data: key)).map { String(format: "%02x", $0) }.joined()
    }

    private static let base64URLBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A forgotten password: a link by email (`POST /v1/password-resets`), and the new password set
/// with it (`POST /v1/password-resets/confirm`), which ends every session of the account.
extension AccountRoutes {
    /// Every request for a link is answered no sooner than this after it came: the answer for an
    /// address with an account (a command to the core, a message written to the outbox, ~10 ms)
    /// and for one without (nothing to do) take the same time, so timing does not tell them apart.
    static let resetAnswerTime: Duration = .milliseconds(300)

    func registerPasswordResets(on routes: Router<APIRequestContext>) {
        routes.post("v1/password-resets") { request, context in
            try await requestReset(request, client: context.clientAddress)
        }
        // Hashes the new password: admitted like a log-in.
        routes.post("v1/password-resets/confirm") { request, context in
            try await admitted(request, context.clientAddress) { _ in try await confirmReset(request, client: context.clientAddress) }
        }
    }

    struct ResetRequest: RequestDocument {
        var email: String
        static let fields = ["email"]
        init(json: borrowing JSONObjectReader) throws { email = try json.string("email") }
    }

    struct ResetAccepted: Encodable {
        var detail = "If an account has this address, a link to set a new password is on its way. It works once, within 30 minutes."
        var expiresInSeconds = Decider.passwordResetLifetime / 1000
    }

    /// The same answer whether or not the address has an account. Limited like log-in: per client
    /// and overall, and per address (five in 15 minutes, then a growing wait), whoever asks, so
    /// that nobody can fill a person's mailbox with links.
    private func requestReset(_ request: Request, client: String) async throws -> Response {
        let started = ContinuousClock.now
        guard let mail = resetMail else {
            throw Problem(.mailUnavailable, detail: "this deployment sends no mail (no SMTP server is configured); ask its operator")
        }
        let body = try await JSONBody.decode(ResetRequest.self, from: request)
        guard Self.hasContractShape(email: body.email) else {
            throw Problem(Rejection(.invalidEmail, "email must look like name@example.org"))
        }
        try await admit(client)
        try await refuseWhileThrottled("reset|\(body.email.lowercased())", what: "password resets for this address")
        // A reset for an account goes to the core, so while the core is away every address is
        // refused alike: refusing only those with an account would say which have one.
        guard let seen = feed.progress.lastFeedMessage, ContinuousClock.now - seen <= HealthRoutes.feedSilenceLimit else {
            throw Problem(.coreUnavailable, detail: "a reset cannot be taken now; retry shortly", headers: [.retryAfter: "5"])
        }
        if let account = try await account(named: body.email) {
            let (token, digest) = resetTokens.make(for: account.userId)
            _ = try await submitter.submit(CommandEnvelope(
                commandId: "reset-\(RandomIdentifier.make())",
                command: .requestPasswordReset(RequestPasswordReset(userId: account.userId, tokenDigest: digest))))
            do {
                try await mail.post.post(to: account.email, subject: "Set a new Pantry password", text: """
                    Hello \(account.username),

                    Someone (we hope you) asked to set a new password for your Pantry account.
                    Open this link within 30 minutes to choose one; it works once, and it ends
                    every session of the account:

                    \(mail.link(token))

                    If you did not ask, ignore this message: your password stays as it is.
                    """)
            } catch {
                throw Problem(.mailUnavailable, detail: "the message could not be queued; try again shortly", headers: [.retryAfter: "5"])
            }
        }
        try? await Task.sleep(until: started + Self.resetAnswerTime, clock: .continuous)
        return JSONResponse.make(ResetAccepted(), status: .accepted, headers: [.cacheControl: "no-store"])
    }

    struct ResetConfirmation: RequestDocument {
        var token: String
        var newPassword: String
        static let fields = ["token", "newPassword"]
        init(json: borrowing JSONObjectReader) throws {
            token = try json.string("token")
            newPassword = try json.string("newPassword")
        }
    }

    /// Sets the new password: the core decides whether the link still works (the latest asked for,
    /// not used, not expired); the change ends every session of the account, and the answer is a
    /// new session, as after a change of password.
    private func confirmReset(_ request: Request, client: String) async throws -> Response {
        let body = try await JSONBody.decode(ResetConfirmation.self, from: request)
        guard PasswordHasher.passwordLengths.contains(body.newPassword.unicodeScalars.count) else {
            throw Problem(.invalidPassword, detail: "password must be 8-128 characters")
        }
        let invalid = Problem(Rejection(.resetTokenInvalid, "this link is not (or no longer) valid: ask for a new one"))
        guard let (userId, digest) = resetTokens.parse(body.token) else { throw invalid }
        let throttleKey = "reset-token|\(userId)"
        try await refuseWhileThrottled(throttleKey, what: "reset attempts for this account")
        let hash = try await hasher.hash(body.newPassword, for: client)
        let position: Int64
        do {
            position = try await submitter.submit(CommandEnvelope(
                commandId: "reset-password-\(RandomIdentifier.make())",
                command: .resetPassword(ResetPassword(userId: userId, tokenDigest: digest, passwordHash: hash)))).positions?.last ?? 0
        } catch let problem as Problem where problem.code == .rejection(.unknownUser) {
            throw invalid
        }
        throttle.recordSuccess(throttleKey)
        guard await feed.waitUntilApplied(position, timeout: Self.registrationVisibility),
              let changed = try await self.account(id: userId) else {
            throw Problem(.notYetVisible, detail: "the password was changed; log in with it", headers: [.retryAfter: "1"])
        }
        return newSession(for: changed, status: .ok)
    }
}
