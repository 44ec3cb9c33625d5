import Foundation
import Testing
import PantryWire

@Suite struct QueryRequestTests {
    @Test func aQueryWithEveryFieldReadsBackAsItWasWritten() throws {
        var request = QueryRequest(.leaderboard(.around), after: 42, userId: "u\"1\n", recipeId: "r/1", text: "ÁNNA 🍳",
                                   limit: 10, radius: 3)
        request.wait = 1_500
        #expect(try QueryRequest(json: request.document, worker: .leaderboard) == request)
    }

    @Test func onlyTheFieldsThatAreSetAreWritten() throws {
        let request = QueryRequest(.leaderboard(.top), limit: 10)
        let document = try #require(try JSONSerialization.jsonObject(with: request.document) as? [String: Any])
        #expect(Set(document.keys) == ["query", "limit"])
        #expect(document["query"] as? String == "top")
        #expect(try QueryRequest(json: request.document, worker: .leaderboard) == request)
    }

    @Test func aFieldNoQueryHasIsRefused() {
        #expect(throws: QueryRequest.UnknownField.self) {
            try QueryRequest(json: Data(#"{"query":"top","limt":10}"#.utf8), worker: .leaderboard)
        }
    }

    @Test func aQueryTheWorkerDoesNotAnswerIsRefusedByName() {
        let refusal = #expect(throws: QueryRequest.UnknownQuery.self) {
            try QueryRequest(json: Data(#"{"query":"top"}"#.utf8), worker: .carts)
        }
        #expect(refusal?.description == "the carts worker has no query 'top'")
    }

    @Test(arguments: WorkerName.allCases)
    func everyQueryOfAWorkerIsReadBackByThatWorker(_ worker: WorkerName) throws {
        for query in worker.queries {
            #expect(query.worker == worker)
            #expect(try QueryRequest(json: QueryRequest(query).document, worker: worker).query == query)
        }
    }

    /// The names the schema allows are exactly those some worker answers.
    @Test func theQueryNamesAreTheSchemasEnum() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemas
            .appendingPathComponent("bus/query.schema.json"))) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        let names = try #require((properties["query"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(names) == Set(WorkerName.allCases.flatMap(\.queries).map(\.name)))
    }

    /// The error codes a worker sends are the ones the answer's schema lists.
    @Test func theErrorCodesAreTheSchemasEnum() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemas
            .appendingPathComponent("bus/query-answer.schema.json"))) as? [String: Any])
        let failure = try #require((schema["oneOf"] as? [[String: Any]])?.first { ($0["required"] as? [String])?.contains("error") == true })
        let error = try #require((failure["properties"] as? [String: Any])?["error"] as? [String: Any])
        let code = try #require((error["properties"] as? [String: Any])?["code"] as? [String: Any])
        #expect(Set(try #require(code["enum"] as? [String])) == Set(QueryError.Code.allCases.map(\.rawValue)))
    }

    static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../schemas").standardizedFileURL
}
