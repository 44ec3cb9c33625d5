import Foundation
import HTTPTypes
import PantryTestRuntime
import Testing

/// Issue 14's rules on what a request may look like, answered by the real API in process: bodies
/// are JSON once, public text hides no characters, a token has one spelling, a known path with
/// another method is 405 with its own `Allow`, and HEAD is GET without a body.
extension APIRouteTests {
@Suite struct RequestShapeRouteTests {
    static let password = "correct horse battery"

    @Test func anUntypedCrossOriginBodyIsRefusedAndCreatesNothing() async throws {
        try await InProcessDeployment.run { api, _ in
            // What a `no-cors` fetch of an untyped Blob from another website sends: no Content-Type.
            let body = try JSONSerialization.data(withJSONObject: ["username": "visitor", "email": "visitor@example.org", "password": Self.password])
            let response = try await api.execute(uri: "/v1/accounts", method: .post, headers: [HTTPField.Name("Origin")!: "https://elsewhere.example"],
                                                 body: .init(bytes: body))
            let refused = Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer: response.body))
            expectProblem(refused, 415, "unsupported_media_type")
            #expect(try await api.post("/v1/sessions", ["username": "visitor", "password": Self.password]).status == 401)
        }
    }

    @Test func bodiesMustBeJSONOnceAndPublicTextCannotHideCharacters() async throws {
        try await InProcessDeployment.run { api, _ in
            let (_, token) = try await api.registerAndLogIn("texter")
            let shakshuka = "/v1/recipes/catalog:shakshuka/experiences"
            let plain = try await api.call(.post, shakshuka, raw: Array(#"{"text": "hi"}"#.utf8), token: token, headers: ["Content-Type": "text/plain"])
            expectProblem(plain, 415, "unsupported_media_type")
            let form = try await api.call(.post, shakshuka, raw: Array("text=hi".utf8), token: token,
                                          headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 415)
            let twice = try await api.call(.post, shakshuka, raw: Array(#"{"text": "nice", "text": "evil"}"#.utf8), token: token)
            expectProblem(twice, 422, "invalid_field")
            #expect((twice.json["detail"] as? String)?.contains("twice") == true)
            for hidden in ["hello\u{202E}evil", "zero\u{200B}width", "\u{FEFF}bom"] {
                expectProblem(try await api.post(shakshuka, ["text": hidden], token: token), 422, "invalid_text")
            }
            // Emoji sequences keep their joiners.
            #expect(try await api.post(shakshuka, ["text": "\u{1F469}\u{200D}\u{1F373} great"], token: token).status == 201)
            // 2,000 scalars at most, however they combine into characters.
            let combining = "a" + String(repeating: "\u{0301}", count: 2000)
            #expect(try await api.post(shakshuka, ["text": combining], token: token).status == 422)
            // A password's 8-128 characters are Unicode scalars too, as the schema's minLength counts.
            let marks = ["username": "marks", "email": "marks@example.org", "password": "e" + String(repeating: "\u{0301}", count: 7)]
            #expect(try await api.post("/v1/accounts", marks).status == 201)
            let tooLong = ["username": "marks2", "email": "marks2@example.org", "password": "e" + String(repeating: "\u{0301}", count: 128)]
            #expect(try await api.post("/v1/accounts", tooLong).json["code"] as? String == "invalid_password")
        }
    }

    @Test func aTokenIsAcceptedOnlyInItsCanonicalSpelling() async throws {
        try await InProcessDeployment.run { api, _ in
            let (_, token) = try await api.registerAndLogIn("canon")
            let parts = token.split(separator: ".").map(String.init)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let mac = parts[1]
            let last = try #require(alphabet.firstIndex(of: mac.last!))
            // A 32-byte MAC leaves two unused bits in its last character: its three other spellings.
            let variants = (0..<4).map { (last & ~0b11) | $0 }.filter { $0 != last }.map { mac.dropLast() + String(alphabet[$0]) }
            #expect(variants.count == 3)
            for variant in variants {
                #expect(try await api.get("/v1/me", token: "\(parts[0]).\(variant)").status == 401, "\(variant)")
            }
            #expect(try await api.get("/v1/me", token: token).status == 200)
        }
    }

    @Test func anExperienceIdDoesNotPublishTheAuthorsIdempotencyKey() async throws {
        try await InProcessDeployment.run { api, _ in
            let (userId, token) = try await api.registerAndLogIn("keeper")
            let path = "/v1/recipes/catalog:shakshuka/experiences"
            let written = try await api.post(path, ["text": "lovely"], token: token, headers: ["Idempotency-Key": "my-secret-key-42"])
            try #require(written.status == 201, "\(written)")
            let listed = try await api.get("\(path)?after=\(written.json["position"] as? Int ?? 0)")
            let experiences = try #require(listed.json["result"] as? [[String: Any]])
            let id = try #require(experiences.first?["experienceId"] as? String)
            #expect(experiences.count == 1 && !id.contains("my-secret-key-42") && !id.contains(userId))
        }
    }

    @Test func aKnownPathWithAnotherMethodIs405WithItsOwnAllowAndHeadIsGetWithoutABody() async throws {
        try await InProcessDeployment.run { api, _ in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.put, "/v1/sessions", "POST"), (.delete, "/v1/recipes/catalog:shakshuka", "GET, HEAD"),
                (.post, "/v1/recipes/featured", "GET, HEAD"), (HTTPRequest.Method("TRACE")!, "/v1/me/cart", "GET, HEAD, POST"),
            ]
            for (method, path, allow) in cases {
                let answer = try await api.call(method, path)
                #expect(answer.status == 405 && answer.header("Allow") == allow, "\(method) \(path) \(answer.status) \(answer.headers)")
                #expect(answer.json["code"] as? String == "method_not_allowed")
            }
            #expect(try await api.call(.put, "/no/such/path").status == 404)
            let head = try await api.call(.head, "/v1/leaderboard")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Type") == "application/json")
            #expect(try await api.call(.head, "/v1/me/cart").status == 401)
            // Path parameters longer than the contract allows are refused, not looked up.
            for (path, code) in [("/v1/leaderboard/around/" + String(repeating: "u", count: 65), "invalid_user_id"),
                                 ("/v1/recipes/" + String(repeating: "r", count: 129) + "/experiences", "invalid_recipe_id")] {
                expectProblem(try await api.get(path), 422, code)
            }
        }
    }
}
}
