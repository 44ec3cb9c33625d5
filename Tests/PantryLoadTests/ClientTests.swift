import Foundation
@testable import PantryLoad
import Testing

@Suite struct ClientTests {
    @Test func thePositionIsFoundWithoutDecoding() {
        func position(_ text: String) -> Int64? { PantryClient.position(in: Data(text.utf8)) }
        #expect(position(#"{"position":1234,"result":[{"rank":1,"userId":"u","username":"position","points":3}]}"#) == 1234)
        #expect(position(#"{"positions":[7],"position": 7}"#) == 7)
        #expect(position(#"{"result":{"points":2},"position":90071992547}"#) == 90_071_992_547)
        #expect(position(#"{"position":null}"#) == nil)
        #expect(position(#"{"code":"not_found"}"#) == nil)
        #expect(position("") == nil)
    }

    @Test func requestBodiesAreValidJSON() throws {
        let body = PantryClient.jsonObject(["recipeId": "r1", "ingredient": "quote \" backslash \\ tab \t é"])
        let decoded = try JSONSerialization.jsonObject(with: body) as? [String: String]
        #expect(decoded == ["recipeId": "r1", "ingredient": "quote \" backslash \\ tab \t é"])
        #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"recipeId":"r1","#))
    }
}
