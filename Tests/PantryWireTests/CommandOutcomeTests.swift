import Foundation
import PantryWire
import PantryDomain
import Testing

@Suite struct CommandOutcomeTests {
    static let samples: [CommandOutcome] = [
        .accepted("c1", 7...7),
        .accepted("c2", 8...10, duplicate: true),
        .rejected("c3", Rejection(.invalidField, "'data.delta' must be an integer \"quoted\" 🍅")),
        .rejected(nil, Rejection(.malformedJSON, "not valid JSON")),
        .failed("c4", "disk I/O error"),
    ]

    @Test(arguments: samples)
    func theDocumentReadsBackAsTheSameOutcome(_ outcome: CommandOutcome) throws {
        #expect(try CommandOutcome(json: outcome.jsonDocument) == outcome)
    }

    @Test(arguments: [
        #"{"commandId":"c1","status":"maybe"}"#,
        #"{"commandId":"c1"}"#,
        #"{"commandId":"c1","status":"accepted","positions":[1,"2"]}"#,
        #"{"commandId":"c1","status":"accepted","positions":7}"#,
        #"{"commandId":"c1","status":"accepted","duplicate":"yes"}"#,
        #"{"commandId":"c1","status":"accepted""#,
    ])
    func aBrokenDocumentIsRefused(_ json: String) {
        #expect(throws: (any Error).self) { try CommandOutcome(json: Data(json.utf8)) }
    }
}
