import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PantryTestRuntime
import Testing

/// Reads refuse parameters outside the contract, and a long list is read in pages.
extension APIRouteTests {
@Suite struct QueryRouteTests {
    /// One deployment for both checks (a start is most of their time); each has users of its own.
    @Test func readsAreBoundedAndRefuseWhatTheContractDoesNot() async throws {
        try await InProcessDeployment.run { api, _ in
            try await Self.readsRefuseBadParametersAndPositionsNotWritten(api)
            try await Self.onePersonsGroceriesAreBoundedAndReadInPages(api)
        }
    }

    private static func readsRefuseBadParametersAndPositionsNotWritten(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("dora")
        let cases = [
            ("/v1/leaderboard?limit=0", "invalid_query"),
            ("/v1/leaderboard?limit=ten", "invalid_query"),
            ("/v1/leaderboard?after=-1", "invalid_query"),
            ("/v1/leaderboard?after=99999999", "position_not_written"),
            ("/v1/recipes/by-ingredients?ingredients=a,b,c,d,e,f", "invalid_query"),
            ("/v1/recipes/by-ingredients", "invalid_query"),
            ("/v1/recipes/search?query=soup&diet=carnivore", "invalid_query"),
            ("/v1/recipes/not-an-id", "invalid_query"),
            ("/v1/images?url=file:///etc/passwd", "invalid_query"),
        ]
        for (path, code) in cases {
            let answer = try await api.get(path, token: token)
            #expect(answer.status == 422 && answer.json["code"] as? String == code, "\(path) \(answer)")
        }
        #expect(try await api.get("/v1/recipes/catalog:no-such-recipe", token: token).status == 404)
    }

    private static func onePersonsGroceriesAreBoundedAndReadInPages(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("hoarder")
        // Eight connections at once, as a client in a hurry sends them (and in a third of the time).
        let port = try #require(api.port)
        let last = try await withThrowingTaskGroup(of: Int.self) { lanes in
            for lane in 0..<8 {
                lanes.addTask {
                    try await TestClient.withClient(host: "localhost", port: port) { connection in
                        var last = 0
                        for n in stride(from: lane, to: 1000, by: 8) {
                            let added = try await Self.post(connection, "/v1/me/groceries", ["ingredient": "item \(n)"], token: token)
                            try #require(added.status == 201, "item \(n): \(added)")
                            last = max(last, added.json["position"] as? Int ?? 0)
                        }
                        return last
                    }
                }
            }
            return try await lanes.reduce(0, max)
        }
        let over = try await api.post("/v1/me/groceries", ["ingredient": "one too many"], token: token)
        #expect(over.status == 409 && over.json["code"] as? String == "limit_reached", "\(over)")
        var seen: [String] = []
        var cursor: Int?
        var pages = 0
        repeat {
            let page = try await api.get("/v1/me/groceries?after=\(last)" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token).ok()
            seen += try #require(values(page.objects("result"), "item"))
            pages += 1
            cursor = page["next"] as? Int
        } while cursor != nil && pages < 20
        #expect(pages == 5 && seen.count == 1000 && Set(seen).count == 1000 && !seen.contains("one too many"))
        #expect(try await api.get("/v1/me/groceries?limit=7", token: token).ok().objects("result")?.count == 7)
        #expect(try await api.get("/v1/me/groceries?limit=500", token: token).status == 422)
    }


    /// A POST on a connection of the test's own: the live test client is one connection, which
    /// sends one request at a time.
    private static func post(_ connection: TestClient, _ path: String, _ json: [String: Any], token: String) async throws -> Answer {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        headers[.contentType] = "application/json"
        let body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        let response = try await connection.execute(.init(path, method: .post, authority: "localhost", headers: headers, body: body))
        return Answer(status: Int(response.status.code), headers: response.headers, body: response.body.map { Array(buffer: $0) } ?? [])
    }
}
}
