import Foundation
import PantryLog
import PantryMail
import PantryTestRuntime
import Testing

/// A forgotten password: a link by email, the new password set with it once, and every session of
/// the account ended; the same answer for an address without an account.
extension APIRouteTests {
@Suite struct PasswordResetRouteTests {
    static let password = "Sesame-0pen sesame", newPassword = "a new sesame, at last"

    /// The token in the one queued message to `address`.
    static func token(in mail: [MailOutbox.Queued], to address: String) throws -> String {
        let mine = mail.filter { $0.recipient == address }
        try #require(mine.count == 1, "\(mail.map(\.recipient))")
        let text = String(decoding: mine[0].message, as: UTF8.self)
        let link = try #require(text.range(of: "https://pantry.example/#/reset?token="), "\(text)")
        return String(text[link.upperBound...].prefix { !$0.isWhitespace })
    }

    @Test func aLinkByEmailSetsTheNewPasswordOnceAndEndsEverySession() async throws {
        try await InProcessDeployment.run(configure: { try! InProcessDeployment.withMail(&$0) }) { api, deployment in
            let (_, first) = try await api.registerAndLogIn("erin", password: Self.password)
            let second = try await api.post("/v1/sessions", ["email": "erin@example.org", "password": Self.password])
            let asked = try await api.post("/v1/password-resets", ["email": "Erin@example.org"])
            #expect(asked.status == 202, "\(asked)")
            #expect(asked.json["expiresInSeconds"] as? Int == 1800)
            let mail = try deployment.queuedMail()
            let token = try Self.token(in: mail, to: "erin@example.org")
            let message = String(decoding: mail[0].message, as: UTF8.self)
            #expect(message.contains("Subject: Set a new Pantry password\r\n") && message.contains("Hello erin,"))
            // The log keeps the token's digest, never the token.
            let logged = try deployment.events().map { String(decoding: $0.data, as: UTF8.self) }.joined()
            #expect(!logged.contains(String(token.split(separator: ".")[1])))
            #expect(try deployment.events().contains { $0.type == "PasswordResetRequested" })

            let reset = try await api.post("/v1/password-resets/confirm", ["token": token, "newPassword": Self.newPassword])
            try #require(reset.status == 200, "\(reset)")
            #expect(reset.json["username"] as? String == "erin")
            let fresh = try #require(reset.json["token"] as? String)
            // Every earlier session has ended; the new one works.
            for old in [first, try #require(second.json["token"] as? String)] {
                expectProblem(try await api.get("/v1/me", token: old), 401, "invalid_token")
            }
            #expect(try await api.get("/v1/me", token: fresh).status == 200)
            expectProblem(try await api.post("/v1/sessions", ["username": "erin", "password": Self.password]), 401, "invalid_credentials")
            #expect(try await api.post("/v1/sessions", ["username": "erin", "password": Self.newPassword]).status == 201)
            // A link works once.
            expectProblem(try await api.post("/v1/password-resets/confirm", ["token": token, "newPassword": "yet another one!"]),
                          409, "reset_token_used")
        }
    }

    @Test func anAddressWithoutAnAccountGetsTheSameAnswerAndNoMail() async throws {
        try await InProcessDeployment.run(configure: { try! InProcessDeployment.withMail(&$0) }) { api, deployment in
            _ = try await api.registerAndLogIn("fred", password: Self.password)
            var answers: [Answer] = []
            for address in ["fred@example.org", "nobody@example.org"] {
                let started = ContinuousClock.now
                answers.append(try await api.post("/v1/password-resets", ["email": address]))
                #expect(ContinuousClock.now - started >= .milliseconds(300))
            }
            #expect(answers.map(\.status) == [202, 202])
            #expect(answers[0].body == answers[1].body)
            #expect(try deployment.queuedMail().map(\.recipient) == ["fred@example.org"])
        }
    }

    @Test func aBadTokenOrPasswordIsRefusedAndChangesNothing() async throws {
        try await InProcessDeployment.run(configure: { try! InProcessDeployment.withMail(&$0) }) { api, deployment in
            let (userId, _) = try await api.registerAndLogIn("gina", password: Self.password)
            _ = try await api.post("/v1/password-resets", ["email": "gina@example.org"])
            let token = try Self.token(in: try deployment.queuedMail(), to: "gina@example.org")
            let forged = userId + "." + String(repeating: "A", count: 43)
            let cases: [([String: Any], Int, String)] = [
                (["token": forged, "newPassword": Self.newPassword], 404, "reset_token_invalid"),
                (["token": "nobody." + String(repeating: "A", count: 43), "newPassword": Self.newPassword], 404, "reset_token_invalid"),
                (["token": "not a token", "newPassword": Self.newPassword], 404, "reset_token_invalid"),
                (["token": token, "newPassword": "short"], 422, "invalid_password"),
                (["token": token], 422, "invalid_field"),
            ]
            for (body, status, code) in cases {
                expectProblem(try await api.post("/v1/password-resets/confirm", body), status, code)
            }
            expectProblem(try await api.post("/v1/password-resets", ["email": "not-an-email"]), 422, "invalid_email")
            // The real link still works after all of that.
            #expect(try await api.post("/v1/password-resets/confirm", ["token": token, "newPassword": Self.newPassword]).status == 200)
        }
    }

    @Test func linksForOneAddressAreLimitedWhoeverAsks() async throws {
        try await InProcessDeployment.run(configure: { try! InProcessDeployment.withMail(&$0) }) { api, deployment in
            for _ in 0..<5 { #expect(try await api.post("/v1/password-resets", ["email": "hugo@example.org"]).status == 202) }
            let refused = try await api.post("/v1/password-resets", ["email": "hugo@example.org"])
            expectProblem(refused, 429, "too_many_attempts")
            #expect(refused.header("Retry-After") != nil)
            #expect(try await api.post("/v1/password-resets", ["email": "ida@example.org"]).status == 202)
        }
    }

    @Test func withoutAnSMTPServerNoLinkIsPromised() async throws {
        try await InProcessDeployment.run { api, _ in
            _ = expectProblem(try await api.post("/v1/password-resets", ["email": "jon@example.org"]), 503, "mail_unavailable")
        }
    }
}
}
