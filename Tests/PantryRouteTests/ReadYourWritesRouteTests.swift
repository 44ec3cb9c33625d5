import Foundation
import HummingbirdTesting
import PantryTestRuntime
import Testing

/// `?after=` waits on whoever holds the read model (a worker, or the API's feed for the
/// leaderboard) and asks the log, never the feed, whether a position is written. What needs the
/// core killed stays in pytest (Tests/system/test_read_your_writes.py).
extension APIRouteTests {
@Suite struct ReadYourWritesRouteTests {
    static let shakshuka = "catalog:shakshuka"

    private static func position(_ answer: Answer) -> Int64 {
        (answer.json["position"] as? NSNumber)?.int64Value ?? -1
    }

    /// One deployment for the three checks (a start is most of their time); each has users of its own.
    @Test func aReadAfterACommandSeesItWhoeverHoldsTheReadModel() async throws {
        try await InProcessDeployment.run { api, _ in
            try await Self.aReadOfAnotherWorkerAfterACommandSeesIt(api)
            try await Self.aLeaderboardReadAfterACommandItDoesNotReadSeesIt(api)
            try await Self.aUsersCountedIngredientsAreReadAtOnceAfterThePointAndOnlyByThatUser(api)
        }
    }

    private static func aReadOfAnotherWorkerAfterACommandSeesIt(_ api: some TestClientProtocol) async throws {
        // The favourites worker does not subscribe to points: the position is read from the log
        // when the query asks for it, instead of at the next heartbeat.
        let (_, token) = try await api.registerAndLogIn("crosser")
        let saved = try await api.call(.put, "/v1/me/favourites/\(Self.shakshuka)", token: token)
        try await api.startCooking(Self.shakshuka, token: token)
        let earned = try await api.post("/v1/me/owned-ingredients", ["recipeId": Self.shakshuka, "ingredient": "onion"], token: token)
        try #require(saved.status == 201 && earned.status == 201, "\(saved) \(earned)")
        let favourites = try await api.get("/v1/me/favourites?after=\(Self.position(earned))", token: token)
        #expect(favourites.status == 200, "\(favourites)")
        #expect(Self.position(favourites) >= Self.position(earned))
        #expect((favourites.json["result"] as? [[String: Any]])?.compactMap { $0["recipeId"] as? String } == [Self.shakshuka])
    }

    private static func aLeaderboardReadAfterACommandItDoesNotReadSeesIt(_ api: some TestClientProtocol) async throws {
        // The API's leaderboard reads no favourites: the position is read from the log, not awaited.
        let (_, token) = try await api.registerAndLogIn("saver")
        let saved = try await api.call(.put, "/v1/me/favourites/\(Self.shakshuka)", token: token)
        try #require(saved.status == 201, "\(saved)")
        for path in ["/v1/leaderboard/me?after=\(Self.position(saved))", "/v1/leaderboard?after=\(Self.position(saved))"] {
            let answer = try await api.get(path, token: token)
            #expect(answer.status == 200 && Self.position(answer) >= Self.position(saved), "\(path): \(answer)")
        }
    }

    private static func aUsersCountedIngredientsAreReadAtOnceAfterThePointAndOnlyByThatUser(_ api: some TestClientProtocol) async throws {
        // The recipe page opens with "I have this" already counted: the read sees the point just earned.
        let (_, token) = try await api.registerAndLogIn("counter")
        let (_, other) = try await api.registerAndLogIn("onlooker")
        let path = "/v1/me/owned-ingredients/\(Self.shakshuka)"
        func ingredients(_ answer: Answer) -> [String]? {
            (answer.json["result"] as? [String: Any])?["ingredients"] as? [String]
        }
        let before = try await api.get(path, token: token)
        #expect(before.status == 200 && ingredients(before) == [], "\(before)")
        #expect((before.json["result"] as? [String: Any])?["recipeId"] as? String == Self.shakshuka)
        try await api.startCooking(Self.shakshuka, token: token)
        var earned = Answer(status: 0, headers: [:], body: [])
        for ingredient in ["Eggs", "onion"] {
            earned = try await api.post("/v1/me/owned-ingredients", ["recipeId": Self.shakshuka, "ingredient": ingredient], token: token)
            try #require(earned.status == 201, "\(earned)")
        }
        let counted = try await api.get("\(path)?after=\(Self.position(earned))", token: token)
        #expect(counted.status == 200 && Self.position(counted) >= Self.position(earned), "\(counted)")
        #expect(ingredients(counted) == ["egg", "onion"], "\(counted)")
        // The id is read as a command reads it, here as through the log service: spaces around it do not count.
        let padded = try await api.get("/v1/me/owned-ingredients/%20\(Self.shakshuka)%20", token: token)
        #expect(padded.status == 200 && ingredients(padded) == ["egg", "onion"], "\(padded)")
        // Another cook's read says nothing of them; no token, a bad id: refused, nothing read.
        #expect(ingredients(try await api.get("\(path)?after=\(Self.position(earned))", token: other)) == [])
        #expect(try await api.get(path).status == 401)
        #expect(try await api.get("/v1/me/owned-ingredients/\(String(repeating: "x", count: 129))", token: token).status == 422)
        #expect(try await api.get("\(path)?after=nope", token: token).status == 422)
        // The log answers at its head: a position it has not written yet is refused, not waited for.
        let beyond = try await api.get("\(path)?after=\(Self.position(earned) + 1_000)", token: token)
        expectProblem(beyond, 422, "position_not_written")
    }
}
}
