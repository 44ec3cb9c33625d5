import Testing
@testable import PantryHTTP

struct BearerTokenTests {
    @Test func theTokenIsWhatFollowsTheSchemeInAnyCaseWithoutSurroundingBlanks() {
        #expect(BearerAuthenticator.bearerToken("Bearer abc.def") == "abc.def")
        #expect(BearerAuthenticator.bearerToken("bEARER   abc.def \t") == "abc.def")
        #expect(BearerAuthenticator.bearerToken("Bearer a b") == "a b", "inner spaces stay: the signature check refuses it")
        #expect(BearerAuthenticator.bearerToken("Bearer ") == nil)
        #expect(BearerAuthenticator.bearerToken("Bearer") == nil)
        #expect(BearerAuthenticator.bearerToken("Basic abc") == nil)
        #expect(BearerAuthenticator.bearerToken("Bearerabc") == nil)
        #expect(BearerAuthenticator.bearerToken("Bearér abc") == nil)
    }
}
