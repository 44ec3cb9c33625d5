import Foundation
import PantryBus
import PantryTestRuntime
import PantryWire
import Testing
import ZeroMQ

/// The API answers the leaderboard from its own memory (`LeaderboardReadModel`): the same answers
/// as the leaderboard worker gives from its file, asked over its socket as the API would.
extension APIRouteTests {
@Suite struct LeaderboardRouteTests {
    /// A JSON value written with sorted keys, to compare two answers by meaning.
    private static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    @Test func theAPIsLeaderboardAnswersAsTheWorkerDoes() async throws {
        try await InProcessDeployment.run { api, deployment in
            let recipe = try await api.get("/v1/recipes/catalog:shakshuka")
            let ingredients = try #require(((recipe.json["payload"] as? [String: Any])?["recipe"] as? [String: Any])?["ingredients"] as? [[String: Any]])
                .compactMap { $0["name"] as? String }
            try #require(ingredients.count >= 3)
            var users: [(userId: String, token: String)] = []
            for n in 0..<6 { users.append(try await api.registerAndLogIn("ranked\(n)")) }
            // Ties on points (sharing a rank, listed by who got there first), users without points, a deletion.
            var position: Int64 = 0
            for (n, user) in users.enumerated() {
                if n % 4 != 0 { try await api.startCooking("catalog:shakshuka", token: user.token) }
                for ingredient in ingredients.prefix(n % 4) {
                    let earned = try await api.post("/v1/me/owned-ingredients", ["recipeId": "catalog:shakshuka", "ingredient": ingredient],
                                                    token: user.token)
                    try #require(earned.status == 201, "\(earned)")
                    position = max(position, (earned.json["position"] as? NSNumber)?.int64Value ?? 0)
                }
            }
            let deleted = try await api.call(.delete, "/v1/me", json: ["password": "correct horse battery"], token: users[3].token)
            try #require(deleted.status == 204, "\(deleted)")
            let head = try #require((try await api.get("/v1/leaderboard?limit=100&after=\(position)").json["position"] as? NSNumber)?.int64Value)

            let context = try ZMQContext()
            defer { context.shutdown() }
            let worker = try RequestClient(context: context, endpoint: BusEndpoints(dataDirectory: deployment.directory.url).queries(of: .leaderboard),
                                           timeout: .seconds(30))
            var questions: [([String: Any], String?)] = [(["query": "top", "limit": 100], "/v1/leaderboard?limit=100"),
                                                         (["query": "top", "limit": 2], "/v1/leaderboard?limit=2")]
            for user in users {
                questions += [(["query": "entry", "userId": user.userId], nil),
                              (["query": "around", "userId": user.userId, "radius": 1], "/v1/leaderboard/around/\(user.userId)?radius=1")]
            }
            for (question, path) in questions {
                let answer: Answer
                if let path {
                    answer = try await api.get("\(path)&after=\(head)")
                } else {
                    // An entry: the API answers it for the token's own user.
                    let token = try #require(users.first { $0.userId == question["userId"] as? String }?.token)
                    answer = try await api.get("/v1/leaderboard/me?after=\(head)", token: token)
                }
                do {
                    let result = try worker.query(question.merging(["wait": 5000]) { $1 }, after: head)
                    #expect(answer.status == 200, "\(question): \(answer)")
                    #expect(try Self.canonical(answer.json["result"] ?? NSNull()) == Self.canonical(result), "\(question)")
                } catch RequestClient.Failure.refused(let code, _) {
                    #expect(code == "not_found" && [401, 404].contains(answer.status), "\(question): \(code), \(answer)")
                }
            }
            let top = try #require(try await api.get("/v1/leaderboard?limit=100&after=\(head)").json["result"] as? [[String: Any]])
            // Users 1, 2 and 5 have points (1, 2 and 1: ranks 1, 2, 2); 0 and 4 have none, 3 is deleted.
            #expect(top.map { "\($0["userId"] ?? ""):\($0["points"] ?? ""):\($0["rank"] ?? "")" }
                    == ["\(users[2].userId):2:1", "\(users[1].userId):1:2", "\(users[5].userId):1:2"])
        }
    }
}
}
