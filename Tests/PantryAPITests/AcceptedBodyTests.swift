import Foundation
import Testing
@testable import PantryHTTP

struct AcceptedBodyTests {
    @Test func theAcceptedAnswerIsJSONWithTheLastPositionAndEveryPosition() throws {
        for positions: [Int64] in [[], [7], [41, 42, 9_223_372_036_854_775_807]] {
            let body = CommandSubmitter.acceptedBody(positions)
            let decoded = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect(decoded.keys.sorted() == ["position", "positions"])
            #expect((decoded["position"] as? NSNumber)?.int64Value == positions.last ?? 0)
            #expect((decoded["positions"] as? [NSNumber])?.map(\.int64Value) == positions)
        }
    }
}
