import Foundation
import HummingbirdTesting
import HTTPTypes
import PantryTestRuntime
import Testing

/// Issue 12's and 32's rules that one deployment's answers show: public browsing, lists a person
/// alone reads, facts a client cannot set, retries that cannot lie, and accounts a person owns.
/// What needs the processes (deletion's traces in their files, `pantry submit`) stays in pytest.
extension APIRouteTests {
@Suite struct TrustRouteTests {
    static let shakshuka = "catalog:shakshuka"
    static let password = "correct horse battery"
    /// One deployment for the six checks (a start is most of their time); each has users of its own.
    @Test func theRulesOfTrustHoldInOneDeploymentsAnswers() async throws {
        try await InProcessDeployment.run { api, _ in
            try await Self.browsingIsPublicAndPrivateDataNeedsAToken(api)
            try await Self.privateListsBelongToTheToken(api)
            try await Self.favouritesAndCartLinesTakeTitleAndImageFromTheRecipe(api)
            try await Self.anIdempotencyKeyReusedForAnotherRequestIsRefused(api)
            try await Self.registrationGivesASessionAndLogInWorksByEmail(api)
            try await Self.aNewPasswordEndsTheOtherSessions(api)
        }
    }


    private static func browsingIsPublicAndPrivateDataNeedsAToken(_ api: some TestClientProtocol) async throws {
        let (userId, _) = try await api.registerAndLogIn("browser")
        let shakshuka = Self.shakshuka
        let publicPaths = ["/v1/recipes/by-ingredients?ingredients=egg", "/v1/recipes/search?query=soup", "/v1/recipes/\(shakshuka)",
                           "/v1/recipes/random?count=2", "/v1/ingredients/autocomplete?prefix=tom", "/v1/leaderboard?limit=5",
                           "/v1/leaderboard/around/\(userId)?radius=2", "/v1/recipes/\(shakshuka)/experiences"]
        for path in publicPaths {
            let answer = try await api.get(path)
            #expect(answer.status == 200, "\(path) \(answer)")
        }
        #expect(values(try await api.get("/v1/leaderboard/around/\(userId)").ok().objects("result"), "userId")?.contains(userId) == true)
        let privatePaths: [(HTTPRequest.Method, String)] = [
            (.get, "/v1/me"), (.get, "/v1/me/favourites"), (.get, "/v1/me/cart"), (.get, "/v1/me/groceries"),
            (.get, "/v1/leaderboard/me"), (.post, "/v1/me/owned-ingredients"), (.delete, "/v1/me"),
            (.post, "/v1/recipes/\(shakshuka)/experiences"),
        ]
        for (method, path) in privatePaths {
            expectProblem(try await api.call(method, path, json: [String: Any]()), 401, "invalid_token")
        }
    }

    private static func privateListsBelongToTheToken(_ api: some TestClientProtocol) async throws {
        let (_, ana) = try await api.registerAndLogIn("ana")
        let (_, bob) = try await api.registerAndLogIn("bob")
        let saved = try await api.call(.put, "/v1/me/favourites/\(Self.shakshuka)", token: ana).ok(201)
        _ = try await api.post("/v1/me/groceries", ["ingredient": "Eggs"], token: ana).ok(201)
        let carted = try await api.post("/v1/me/cart", ["recipeId": Self.shakshuka, "delta": 1], token: ana).ok()
        let after = max(saved["position"] as? Int ?? -1, carted["position"] as? Int ?? -1)
        #expect(try await api.get("/v1/me/favourites?after=\(after)", token: ana).ok().objects("result")?.count == 1)
        #expect(try await api.get("/v1/me/favourites?after=\(after)", token: bob).ok().objects("result")?.isEmpty == true)
        #expect(try await api.get("/v1/me/groceries?after=\(after)", token: bob).ok().objects("result")?.isEmpty == true)
        #expect(try await api.get("/v1/me/cart?after=\(after)", token: bob).ok().object("result")?.objects("lines")?.isEmpty == true)
        // A user id in the query is not a way in: it is ignored.
        #expect(try await api.get("/v1/me/favourites?userId=ana&after=\(after)", token: bob).ok().objects("result")?.isEmpty == true)
        #expect(try await api.get("/v1/me/favourites").status == 401)
    }

    private static func favouritesAndCartLinesTakeTitleAndImageFromTheRecipe(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("saver")
        let path = "/v1/me/favourites/\(Self.shakshuka)"
        #expect(try await api.call(.put, path, json: ["title": "Mine now"], token: token).status == 422)
        let saved = try await api.call(.put, path, token: token).ok(201)
        let favourites = try await api.get("/v1/me/favourites?after=\(saved["position"] as? Int ?? -1)", token: token).ok()
        #expect(values(favourites.objects("result"), "title") == ["Shakshuka"])
        #expect(try await api.post("/v1/me/cart", ["recipeId": "catalog:no-such-dish", "delta": 1], token: token).status == 404)
        let carted = try await api.post("/v1/me/cart", ["recipeId": Self.shakshuka, "delta": 2], token: token).ok()
        let cart = try await api.get("/v1/me/cart?after=\(carted["position"] as? Int ?? -1)", token: token).ok()
        #expect(cart.object("result")?.objects("lines")?.map { "\($0["title"] ?? "") \($0["count"] ?? "")" } == ["Shakshuka 2"])
    }

    private static func anIdempotencyKeyReusedForAnotherRequestIsRefused(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("keeper")
        try await api.startCooking(Self.shakshuka, token: token)
        let key = ["Idempotency-Key": "add-1"]
        let oil: [String: Any] = ["recipeId": Self.shakshuka, "ingredient": "olive oil"]
        let first = try await api.post("/v1/me/owned-ingredients", oil, token: token, headers: key)
        #expect(first.status == 201, "\(first)")
        let same = try await api.post("/v1/me/owned-ingredients", oil, token: token, headers: key)
        #expect(same.status == 201 && same.body == first.body && same.header("Idempotent-Replayed") == "true")
        let garlic = try await api.post("/v1/me/owned-ingredients", ["recipeId": Self.shakshuka, "ingredient": "garlic"], token: token, headers: key)
        expectProblem(garlic, 422, "idempotency_key_reused")
        let otherRoute = try await api.post("/v1/me/cart", ["recipeId": Self.shakshuka, "delta": 1], token: token, headers: key)
        expectProblem(otherRoute, 422, "idempotency_key_reused")
        #expect(try await api.get("/v1/me", token: token).ok()["points"] as? Int == 1)
    }

    private static func registrationGivesASessionAndLogInWorksByEmail(_ api: some TestClientProtocol) async throws {
        let password = Self.password
        let registered = try await api.post("/v1/accounts", ["username": "ánna", "email": "Anna@Example.org", "password": password]).ok(201)
        #expect(registered["username"] as? String == "ánna")
        #expect(try await api.get("/v1/me", token: registered["token"] as? String).json["username"] as? String == "ánna")
        let byEmail = try await api.post("/v1/sessions", ["email": "anna@example.org", "password": password])
        #expect(byEmail.status == 201 && byEmail.json["userId"] as? String == registered["userId"] as? String, "\(byEmail)")
        let decomposed = try await api.post("/v1/sessions", ["username": "a\u{0301}nna", "password": password])
        #expect(decomposed.status == 201, "the name is NFC-normalised")
        #expect(try await api.post("/v1/sessions", ["username": "ánna", "email": "anna@example.org", "password": password]).status == 422)
    }

    private static func aNewPasswordEndsTheOtherSessions(_ api: some TestClientProtocol) async throws {
        let (_, oldToken) = try await api.registerAndLogIn("changer")
        let wrong = try await api.call(.put, "/v1/me/password", json: ["currentPassword": "not it at all", "newPassword": "a brand new secret"],
                                       token: oldToken)
        expectProblem(wrong, 403, "wrong_password")
        let changed = try await api.call(.put, "/v1/me/password", json: ["currentPassword": Self.password, "newPassword": "a brand new secret"],
                                         token: oldToken).ok()
        #expect(try await api.get("/v1/me", token: oldToken).status == 401)
        #expect(try await api.get("/v1/me", token: changed["token"] as? String).status == 200)
        #expect(try await api.post("/v1/sessions", ["username": "changer", "password": Self.password]).status == 401)
        #expect(try await api.post("/v1/sessions", ["username": "changer", "password": "a brand new secret"]).status == 201)
    }
}
}
