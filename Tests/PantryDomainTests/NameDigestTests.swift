import PantryDomain
import Testing

@Suite struct NameDigestTests {
    /// The reference vectors of SipHash-2-4 with a 128-bit output (key 00..0f; messages 00, 00 01, ...).
    @Test func matchesTheReferenceVectors() {
        let key = NameKey(bytes: Array(0..<16))!
        let empty = key.digest([UInt8]())
        #expect(empty == NameDigest(low: 0xe6a8_25ba_047f_81a3, high: 0x9302_55c7_1472_f66d))
    }

    @Test func lookAlikesAndCasesMeetAndKeysPartThem() {
        let key = NameKey(k0: 1, k1: 2)
        #expect(key.username("alice") == key.username("\u{430}lice"))
        #expect(key.email("Alice@Example.org") == key.email("alice@example.org"))
        #expect(key.username("alice") != key.email("alice"), "a username and an email are kept apart")
        #expect(key.username("alice") != NameKey(k0: 1, k1: 3).username("alice"))
        #expect(key.check != NameKey(k0: 2, k1: 2).check)
    }
}
