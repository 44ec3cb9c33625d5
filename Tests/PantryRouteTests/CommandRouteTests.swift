import Foundation
import HTTPTypes
import PantryLog
import PantryTestRuntime
import Testing

/// Every command endpoint, its idempotency and its bad input, answered by the real API in front of
/// a real core and workers in this process (`InProcessDeployment`).
extension APIRouteTests {
@Suite struct CommandRouteTests {
    @Test func everyCommandEndpointAcceptsAndRejectsAndTheLogHoldsOnlyTheAccepted() async throws {
        try await InProcessDeployment.run { api, deployment in
            let (userId, token) = try await api.registerAndLogIn("gina")
            func call(_ method: HTTPRequest.Method, _ path: String, _ body: [String: Any]? = nil) async throws -> Answer {
                try await api.call(method, path, json: body, token: token)
            }
            func accepted(_ answer: Answer, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(answer.status == status, "\(answer)", sourceLocation: sourceLocation)
                #expect(answer.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
                #expect(answer.json["position"] as? Int == (answer.json["positions"] as? [Int])?.last, sourceLocation: sourceLocation)
            }

            let shakshuka = "/v1/me/favourites/catalog:shakshuka"
            accepted(try await call(.put, shakshuka), 201)
            expectProblem(try await call(.put, shakshuka), 409, "already_saved")
            expectProblem(try await call(.put, "/v1/me/favourites/catalog:made-up-1"), 404, "unknown_recipe")
            expectProblem(try await call(.put, shakshuka, ["title": "Renamed by the client"]), 422, "invalid_field")
            accepted(try await call(.delete, shakshuka), 200)
            expectProblem(try await call(.delete, shakshuka), 404, "not_saved")

            accepted(try await call(.post, "/v1/me/groceries", ["ingredient": "Olive oil", "amount": 2, "unit": "tbsp", "recipeId": "r1"]), 201)
            expectProblem(try await call(.post, "/v1/me/groceries", ["ingredient": "Salt", "amount": -1]), 422, "invalid_amount")
            accepted(try await call(.patch, "/v1/me/groceries/olive%20oil", ["checked": true]), 200)
            expectProblem(try await call(.patch, "/v1/me/groceries/olive%20oil", ["checked": true]), 409, "unchanged")
            expectProblem(try await call(.patch, "/v1/me/groceries/pepper", ["checked": true]), 404, "no_such_item")
            accepted(try await call(.delete, "/v1/me/groceries/Olive%20Oil"), 200)
            expectProblem(try await call(.delete, "/v1/me/groceries/olive%20oil"), 404, "no_such_item")

            let garlic: [String: Any] = ["recipeId": "catalog:shakshuka", "ingredient": "garlic"]
            expectProblem(try await call(.post, "/v1/me/owned-ingredients", garlic), 409, "not_cooking")
            // "Start cooking" is its own act: no cart line first, and none made.
            accepted(try await call(.post, "/v1/me/cooking/catalog:shakshuka", ["minutes": 20]), 201)
            accepted(try await call(.post, "/v1/me/owned-ingredients", garlic), 201)
            expectProblem(try await call(.post, "/v1/me/cooking/catalog:no-such-recipe", ["minutes": 20]), 404, "unknown_recipe")
            accepted(try await call(.post, "/v1/me/cart", ["recipeId": "catalog:shakshuka", "delta": 1]), 200)
            expectProblem(try await call(.post, "/v1/me/owned-ingredients", ["recipeId": "catalog:shakshuka", "ingredient": "Garlic"]),
                          409, "already_used")

            accepted(try await call(.post, "/v1/me/cart", ["recipeId": "catalog:shakshuka", "delta": 2]), 200)
            expectProblem(try await call(.post, "/v1/me/cart", ["recipeId": "catalog:shakshuka", "delta": -4]), 409, "cart_out_of_range")
            expectProblem(try await call(.post, "/v1/me/cart", ["recipeId": "catalog:shakshuka", "delta": 0]), 422, "invalid_delta")

            accepted(try await call(.post, "/v1/recipes/r1/experiences", ["text": "Roast the tomatoes first.\nReally."]), 201)
            expectProblem(try await call(.post, "/v1/recipes/r1/experiences", ["text": "   "]), 422, "invalid_text")

            let types = try deployment.events().filter { userIdInData($0) == userId }.map(\.type)
            #expect(types == ["UserRegistered", "RecipeRecorded", "RecipeSaved", "SavedRecipeRemoved", "GroceryAdded", "GroceryChecked",
                              "GroceryRemoved", "CookingStarted", "PointEarned", "CartAdjusted", "CartAdjusted", "ExperienceWritten"])
        }
    }

    @Test func anIdempotencyKeyRetryGetsTheSameAnswerAndAppendsOnce() async throws {
        try await InProcessDeployment.run { api, deployment in
            let (hana, hanaToken) = try await api.registerAndLogIn("hana")
            let (ivan, ivanToken) = try await api.registerAndLogIn("ivan")
            let body: [String: Any] = ["recipeId": "catalog:shakshuka", "ingredient": "parsley"]
            let key = ["Idempotency-Key": "use-basil-1"]
            for token in [hanaToken, ivanToken] { try await api.startCooking("catalog:shakshuka", token: token) }
            let first = try await api.post("/v1/me/owned-ingredients", body, token: hanaToken, headers: key)
            let retry = try await api.post("/v1/me/owned-ingredients", body, token: hanaToken, headers: key)
            #expect(first.status == 201 && retry.status == 201)
            #expect(first.body == retry.body)
            #expect(first.header("Idempotent-Replayed") == nil && retry.header("Idempotent-Replayed") == "true")
            // Another user with the same key is another command.
            let other = try await api.post("/v1/me/owned-ingredients", body, token: ivanToken, headers: key)
            #expect(other.status == 201 && (other.json["position"] as? Int ?? 0) > (first.json["position"] as? Int ?? .max))

            let earned = try deployment.events().filter { $0.type == "PointEarned" }
            #expect(earned.map(userIdInData) == [hana, ivan])
            // The log keeps the key only keyed with each user's own key (issue 32): not as sent, and
            // unlike for the two users.
            let stored = earned.map(\.metadata.commandId)
            #expect(stored.allSatisfy { $0.wholeMatch(of: /k-[0-9a-f]{32}/) != nil } && stored[0] != stored[1], "\(stored)")

            for bad in ["", String(repeating: "x", count: 101), "has space", "tab\there", "ünï"] {
                let answer = try await api.post("/v1/me/owned-ingredients", ["recipeId": "catalog:shakshuka", "ingredient": "egg"],
                                                token: hanaToken, headers: ["Idempotency-Key": bad])
                expectProblem(answer, 400, "invalid_idempotency_key")
            }
        }
    }

    @Test func badInputGetsA4xxProblemAndNeverA5xx() async throws {
        try await InProcessDeployment.run { api, _ in
            let (_, token) = try await api.registerAndLogIn("jan")
            let favourite = "/v1/me/favourites/catalog:shakshuka"
            let cases: [(HTTPRequest.Method, String, String?, Int?, String?)] = [
                (.put, favourite, "{not json", 400, "malformed_json"),
                (.put, favourite, "[1, 2]", 400, "malformed_json"),
                (.put, favourite, "null", 400, "malformed_json"),
                (.put, favourite, #"{"title": "Soup"}"#, 422, "invalid_field"),
                (.put, favourite, #"{"userId": "someone-else"}"#, 422, "invalid_field"),
                (.put, favourite, #"{"x": ""# + String(repeating: "x", count: 100_000) + #""}"#, 413, "too_large"),
                (.post, "/v1/me/cart", #"{"recipeId": "catalog:shakshuka", "title": "Soup", "delta": 1}"#, 422, "invalid_field"),
                (.post, "/v1/me/cart", #"{"recipeId": "catalog:shakshuka", "delta": 1.5}"#, 422, "invalid_field"),
                (.post, "/v1/me/cart", #"{"recipeId": "catalog:shakshuka", "delta": 99999999999999999999}"#, 422, nil),
                (.post, "/v1/me/cart", #"{"recipeId": "catalog:shakshuka", "delta": "1"}"#, 422, "invalid_field"),
                (.post, "/v1/me/groceries", #"{"ingredient": "salt", "amount": "lots"}"#, 422, "invalid_field"),
                (.post, "/v1/me/groceries", #"{"ingredient": "salt", "amount": 1e400}"#, nil, nil),
                (.post, "/v1/me/groceries", #"{"ingredient": ""}"#, 422, "invalid_ingredient"),
                (.patch, "/v1/me/groceries/salt", #"{"checked": "yes"}"#, 422, "invalid_field"),
                (.patch, "/v1/me/groceries/%ZZ", #"{"checked": true}"#, 400, "invalid_path"),
                (.put, "/v1/me/favourites/" + String(repeating: "r", count: 200), nil, 422, "invalid_recipe_id"),
                (.post, "/v1/recipes/r1/experiences", #"{"text": ""}"#, 422, "invalid_text"),
                (.post, "/v1/recipes/r1/experiences", "{}", 422, "invalid_field"),
                // An optional field may be left out, but null only where the OpenAPI document allows it.
                (.post, "/v1/me/cooking/catalog:shakshuka", #"{"minutes": null}"#, 422, "invalid_field"),
                (.post, "/v1/sessions", #"{"username": null, "email": "jan@example.org", "password": "x"}"#, 422, "invalid_field"),
                (.get, "/v1/nothing-here", nil, 404, "not_found"),
            ]
            for (method, path, raw, status, code) in cases {
                let answer = try await api.call(method, path, raw: raw.map { Array($0.utf8) }, token: token)
                #expect((400..<500).contains(answer.status), "\(method) \(path) \(raw?.prefix(80) ?? "") \(answer)")
                expectProblem(answer, status ?? answer.status, code)
            }
            // Bytes that are not UTF-8 at all.
            expectProblem(try await api.call(.put, favourite, raw: [0xFF, 0xFE, 0x7B, 0x7D], token: token), 400, "malformed_json")
            // Unicode is fine where the domain allows text.
            expectProblem(try await api.call(.put, "/v1/me/favourites/%E2%9C%93-r%C3%A9cipe", token: token), 404, "unknown_recipe")
            let text = try await api.post("/v1/recipes/r%C3%A9/experiences", ["text": "Très bien — 很好"], token: token)
            #expect(text.status == 201, "\(text)")
            let nulls = try await api.post("/v1/me/groceries", ["ingredient": "salt", "amount": NSNull(), "unit": NSNull(), "recipeId": NSNull()],
                                           token: token)
            #expect(nulls.status == 201, "\(nulls)")
        }
    }

    @Test func metricsCountRequestsByRouteAndCommandsByOutcome() async throws {
        try await InProcessDeployment.run(alone: true) { api, _ in
            // The registry is the test process's: this one compares the counts before and after,
            // with no other deployment counting meanwhile.
            func count(_ series: String, in text: String) -> Int {
                text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            }
            let (_, token) = try await api.registerAndLogIn("quin")
            let before = String(decoding: try await api.get("/metrics").body, as: UTF8.self)
            #expect(try await api.call(.put, "/v1/me/favourites/catalog:shakshuka", token: token).status == 201)
            #expect(try await api.call(.put, "/v1/me/favourites/catalog:shakshuka", token: token).status == 409)
            let metrics = try await api.get("/metrics")
            #expect(metrics.status == 200 && metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            let after = String(decoding: metrics.body, as: UTF8.self)
            let series = [
                #"pantry_http_requests_total{method="PUT",route="/v1/me/favourites/{recipeId}",status="201"}"#,
                #"pantry_http_requests_total{method="PUT",route="/v1/me/favourites/{recipeId}",status="409"}"#,
                #"pantry_api_commands_total{type="SaveRecipe",outcome="rejected",code="already_saved"}"#,
            ]
            for name in series { #expect(count(name, in: after) - count(name, in: before) == 1, "\(name)") }
            #expect(after.contains(#"pantry_http_request_duration_seconds_bucket{method="POST",route="/v1/sessions",status="201""#))
            #expect(count(#"pantry_api_commands_total{type="RegisterUser",outcome="accepted",code=""}"#, in: after) >= 1)
        }
    }
}

}

/// The `userId` of an event's data (never sealed: the key that opens the rest is the user's).
func userIdInData(_ event: RecordedEvent) -> String? {
    (try? JSONSerialization.jsonObject(with: event.data) as? [String: Any])?["userId"] as? String
}
