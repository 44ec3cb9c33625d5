import Foundation
import Testing
import PantryWire

@Suite struct QueryRequestTests {
    @Test func aQueryWithEveryFieldReadsBackAsItWasWritten() throws {
        var request = QueryRequest(query: "around", after: 42, userId: "u\"1\n", recipeId: "r/1", text: "ÁNNA 🍳",
                                   limit: 10, radius: 3)
        request.wait = 1_500
        #expect(try QueryRequest(json: request.document) == request)
    }

    @Test func onlyTheFieldsThatAreSetAreWritten() throws {
        let request = QueryRequest(query: "top", limit: 10)
        let document = try #require(try JSONSerialization.jsonObject(with: request.document) as? [String: Any])
        #expect(Set(document.keys) == ["query", "limit"])
        #expect(try QueryRequest(json: request.document) == request)
    }

    @Test func aFieldNoQueryHasIsRefused() {
        #expect(throws: QueryRequest.UnknownField.self) {
            try QueryRequest(json: Data(#"{"query":"top","limt":10}"#.utf8))
        }
    }
}
