import Crypto
import Foundation
import PantryTestRuntime
import Testing

/// Accounts, sessions and tokens, answered by the real API in front of a real core and workers in
/// this process (`InProcessDeployment`).
extension APIRouteTests {
@Suite struct AccountRouteTests {
    static let password = "Sesame-0pen sesame"
    static let tokenKey = "a test token key of at least thirty-two bytes"

    @Test func aRegisteredUserLogsInAtOnceAndSeesThemselves() async throws {
        try await InProcessDeployment.run { api, _ in
            let registered = try await api.post("/v1/accounts", ["username": "anna", "email": "anna@example.org", "password": Self.password])
            try #require(registered.status == 201, "\(registered)")
            let userId = try #require(registered.json["userId"] as? String)
            let position = try #require(registered.json["position"] as? Int)
            #expect(registered.json["username"] as? String == "anna")
            #expect((1...64).contains(userId.count) && userId.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
            // Logging in right after registering works: registration waited for its event.
            let session = try await api.post("/v1/sessions", ["username": "Anna", "password": Self.password])
            try #require(session.status == 201, "\(session)")
            #expect(session.json["tokenType"] as? String == "Bearer")
            #expect((session.json["expiresAt"] as? Double ?? 0) > Date().timeIntervalSince1970 + 23 * 3600)
            let me = try await api.get("/v1/me?after=\(position)", token: session.json["token"] as? String)
            try #require(me.status == 200, "\(me)")
            #expect(me.json["userId"] as? String == userId && me.json["username"] as? String == "anna")
            #expect(me.json["points"] as? Int == 0 && (me.json["rank"] as? Int ?? 0) >= 1 && (me.json["position"] as? Int ?? 0) >= position)
        }
    }

    @Test func aRegistrationThatBreaksARuleIsRefusedWithItsCode() async throws {
        try await InProcessDeployment.run { api, _ in
            let bert = try await api.post("/v1/accounts", ["username": "bert", "email": "bert@example.org", "password": Self.password])
            #expect(bert.status == 201, "\(bert)")
            let password = Self.password
            let cases: [([String: Any], Int, String)] = [
                (["username": "BERT", "email": "other@example.org", "password": password], 409, "username_taken"),
                (["username": "bert2", "email": "Bert@Example.org", "password": password], 409, "email_taken"),
                (["username": "carl", "email": "carl@example.org", "password": "short"], 422, "invalid_password"),
                (["username": "carl", "email": "carl@example.org", "password": String(repeating: "x", count: 129)], 422, "invalid_password"),
                (["username": "c", "email": "carl@example.org", "password": password], 422, "invalid_username"),
                (["username": "carl with space", "email": "carl@example.org", "password": password], 422, "invalid_username"),
                (["username": "carl", "email": "not-an-email", "password": password], 422, "invalid_email"),
                (["username": "carl", "email": "carl@example.org"], 422, "invalid_field"),
                (["username": "carl", "email": "carl@example.org", "password": password, "admin": true], 422, "invalid_field"),
            ]
            for (body, status, code) in cases {
                expectProblem(try await api.post("/v1/accounts", body), status, code)
            }
            // Names that look like bert: taken, or not a username at all.
            for lookalike in ["Ｂｅｒｔ", "b\u{435}rt", "be\u{200B}rt", "bert\u{202E}"] {
                let answer = try await api.post("/v1/accounts", ["username": lookalike, "email": "b2@example.org", "password": password])
                let code = expectProblem(answer, answer.status)["code"] as? String
                #expect([409, 422].contains(answer.status) && ["username_taken", "invalid_username"].contains(code), "\(lookalike): \(answer)")
            }
        }
    }

    @Test func aWrongPasswordAndAnUnknownUserGetTheSameAnswer() async throws {
        try await InProcessDeployment.run { api, _ in
            _ = try await api.registerAndLogIn("dora", password: Self.password)
            let wrongPassword = try await api.post("/v1/sessions", ["username": "dora", "password": Self.password + "!"])
            let unknownUser = try await api.post("/v1/sessions", ["username": "nobody", "password": Self.password])
            expectProblem(wrongPassword, 401, "invalid_credentials")
            #expect(wrongPassword.body == unknownUser.body && unknownUser.status == 401)
        }
    }

    @Test func tokensAreCheckedAndNoRequestNamesAnotherUser() async throws {
        try await InProcessDeployment.run(configure: { $0.tokenKey = Self.tokenKey }) { api, deployment in
            let (ana, anaToken) = try await api.registerAndLogIn("kim")
            let (bob, bobToken) = try await api.registerAndLogIn("lee")
            #expect(try await api.call(.put, "/v1/me/favourites/catalog:shakshuka", token: anaToken).status == 201)
            // The only user a request can act for is the token's.
            expectProblem(try await api.call(.put, "/v1/me/favourites/catalog:shakshuka", json: ["userId": bob], token: anaToken),
                          422, "invalid_field")
            let saved = try deployment.events().filter { $0.type == "RecipeSaved" }.map(\.metadata.userId)
            #expect(saved == [ana])

            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = ["uid": bob, "usr": "lee", "iat": now - 10, "exp": now + 3600, "jti": "forged-one"]
            let parts = anaToken.split(separator: ".").map(String.init)
            let (payload, mac) = (parts[0], parts[1])
            let tamperedPayload = try base64URL(JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
            let signedWithAnotherKey = try forge(claims, key: "another key that is long enough to be a key")
            let expired = try forge(claims.merging(["uid": ana, "usr": "kim", "iat": now - 7200, "exp": now - 3600]) { $1 })
            for bad in [nil, "", "garbage", "\(tamperedPayload).\(mac)", "\(payload).\(mac.dropLast(2))AA", signedWithAnotherKey,
                        expired, "\(payload).\(mac).extra"] as [String?] {
                let answer = try await api.get("/v1/me", token: bad)
                expectProblem(answer, 401, "invalid_token")
                #expect(answer.header("WWW-Authenticate") == "Bearer")
            }
            expectProblem(try await api.get("/v1/me", headers: ["Authorization": "Basic \(anaToken)"]), 401, "invalid_token")
            // A token with the right key is all it takes: the signature is the gate.
            let forged = try forge(claims.merging(["uid": ana, "usr": "kim"]) { $1 })
            #expect(try await api.get("/v1/me", token: forged).json["userId"] as? String == ana)

            // Logging out revokes that token only.
            let second = try await api.post("/v1/sessions", ["username": "kim", "password": "correct horse battery"]).json["token"] as? String
            #expect(try await api.call(.delete, "/v1/sessions/current", token: anaToken).status == 204)
            expectProblem(try await api.get("/v1/me", token: anaToken), 401, "invalid_token")
            expectProblem(try await api.call(.put, "/v1/me/favourites/catalog:shakshuka", token: anaToken), 401, "invalid_token")
            expectProblem(try await api.call(.delete, "/v1/sessions/current", token: anaToken), 401, "invalid_token")
            #expect(try await api.get("/v1/me", token: second).status == 200)
            #expect(try await api.get("/v1/me", token: bobToken).json["userId"] as? String == bob)
        }
    }

    /// A token made here, as another implementation would: the claims' JSON (sorted keys) and its
    /// HMAC-SHA256, each base64url without padding.
    private func forge(_ claims: [String: Any], key: String = tokenKey) throws -> String {
        let payload = base64URL(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return "\(payload).\(base64URL(Data(mac)))"
    }
}
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
