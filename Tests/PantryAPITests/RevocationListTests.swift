import Foundation
@testable import PantryHTTP
import Testing

@Suite struct RevocationListTests {
    @Test func aRevokedTokenIsRefusedAndAnExpiredOneIsNotKept() {
        let list = RevocationList()
        list.revoke("live", expiresAt: 2_000, now: 1_000)
        list.revoke("expired", expiresAt: 900, now: 1_000)
        #expect(list.isRevoked("live"))
        #expect(!list.isRevoked("expired"))
        #expect(!list.isRevoked("never"))
    }

    @Test func idsOfTokensThatExpiredSinceAreSweptAsTheListGrows() {
        let list = RevocationList()
        for n in 0..<1_023 { list.revoke("old-\(n)", expiresAt: 100, now: 0) }
        #expect(list.isRevoked("old-7"))
        // The 1,024th revocation, later: every id whose token has expired by then is forgotten.
        list.revoke("new", expiresAt: 1_000, now: 200)
        #expect(!list.isRevoked("old-7"))
        #expect(list.isRevoked("new"))
    }
}
