import NIOCore
import PantryTestSupport
import Testing
@testable import PantryHTTP
import PantryWire

/// The API's short memory of recipe answers: never longer than the worker said they stay true,
/// never longer than its own lifetime, nothing when either is zero, and within its bytes.
@Suite struct RecipeReplyCacheTests {
    static let soup = FetchRequest.search(query: "soup", diet: nil, maxReadyTime: nil, offset: 0, number: 10)
    static let body = ByteBuffer(string: #"{"payload":{"type":"searchPage"},"origin":"cache","provider":"catalog","ageSeconds":3}"#)

    @Test func anAnswerIsKeptForWhatTheWorkerSaidAndNoLonger() {
        let clock = ManualClock()
        let answers = RecipeReplyCache(lifetime: .seconds(10), now: { clock.instant })
        answers.keep(Self.soup, Self.body, reusableForMs: 150)
        #expect(answers.body(Self.soup) == Self.body)
        #expect(answers.body(.search(query: "soup", diet: "vegan", maxReadyTime: nil, offset: 0, number: 10)) == nil)
        clock.advance(by: .milliseconds(149))
        #expect(answers.body(Self.soup) == Self.body)
        clock.advance(by: .milliseconds(1))
        #expect(answers.body(Self.soup) == nil, "the worker's age would have changed")
    }

    @Test func anAnswerIsKeptNoLongerThanTheLifetime() {
        let clock = ManualClock()
        let answers = RecipeReplyCache(lifetime: .milliseconds(100), now: { clock.instant })
        answers.keep(Self.soup, Self.body, reusableForMs: 60_000)
        #expect(answers.body(Self.soup) == Self.body)
        clock.advance(by: .milliseconds(99))
        #expect(answers.body(Self.soup) == Self.body)
        clock.advance(by: .milliseconds(1))
        #expect(answers.body(Self.soup) == nil)
    }

    @Test func zeroKeepsNothing() {
        let off = RecipeReplyCache(lifetime: .zero)
        off.keep(Self.soup, Self.body, reusableForMs: 60_000)
        #expect(off.body(Self.soup) == nil)
        let on = RecipeReplyCache(lifetime: .seconds(1))
        on.keep(Self.soup, Self.body, reusableForMs: 0)
        #expect(on.body(Self.soup) == nil)
    }

    @Test func theAnswersStayWithinTheirBytes() {
        let answers = RecipeReplyCache(lifetime: .seconds(10), capacity: 16 << 10)
        for n in 0..<1_000 {
            answers.keep(.search(query: "soup \(n)", diet: nil, maxReadyTime: nil, offset: 0, number: 10), Self.body, reusableForMs: 5_000)
            #expect(answers.cost <= 16 << 10)
        }
        #expect(answers.body(.search(query: "soup 999", diet: nil, maxReadyTime: nil, offset: 0, number: 10)) != nil)
        #expect(answers.body(.search(query: "soup 0", diet: nil, maxReadyTime: nil, offset: 0, number: 10)) == nil)
    }
}
