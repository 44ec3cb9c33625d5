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

    @Test func codesAreReadAsTheirCases() throws {
        let rejected = try CommandOutcome(json: Data(#"{"commandId":"c1","status":"rejected","code":"already_saved","message":"m"}"#.utf8))
        #expect(rejected.code == .rejection(.alreadySaved))
        let failed = try CommandOutcome(json: Data(#"{"commandId":"c1","status":"failed","code":"storage_error","message":"m"}"#.utf8))
        #expect(failed.code == .storageError)
    }

    /// A newer core may send a code this reader does not know: the outcome is still read, and the
    /// code written back as it came.
    @Test func anUnknownCodeIsKeptAsItCame() throws {
        let json = #"{"commandId":"c1","status":"rejected","code":"recipe_on_fire","message":"m"}"#
        let outcome = try CommandOutcome(json: Data(json.utf8))
        #expect(outcome.code == .other("recipe_on_fire"))
        #expect(try CommandOutcome(json: outcome.jsonDocument) == outcome)
    }

    @Test func everyCodeIsSpelledAsTheSchemaAllows() {
        let codes = Rejection.Code.allCases.map(CommandOutcome.Code.rejection) + [.storageError, .storageUnavailable]
        for code in codes {
            #expect(CommandOutcome.Code(rawValue: code.rawValue) == code)
            #expect(code.rawValue.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }, "\(code)")
        }
    }
}
