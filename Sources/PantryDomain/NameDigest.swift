/// The key the state's username and email index is kept under (`NameDigest`): one per
/// installation, in the key file beside the log, so that the core's snapshot can hold the index
/// without holding a name or an address in the clear.
package struct NameKey: Sendable, Equatable {
    package var k0: UInt64
    package var k1: UInt64

    package init(k0: UInt64, k1: UInt64) { self.k0 = k0; self.k1 = k1 }

    /// 16 bytes, little-endian halves (as stored).
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        let bytes = Array(bytes)
        k0 = bytes[0..<8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        k1 = bytes[8..<16].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// For states that are never written anywhere (tests, tools folding a log in memory).
    package static let unkeyed = NameKey(k0: 0, k1: 0)

    /// SipHash-2-4 with a 128-bit output: a keyed pseudo-random function (no Crypto in the domain),
    /// 128 bits so that a million names collide with odds of about 2^-88.
    package func digest(_ message: some Collection<UInt8>) -> NameDigest {
        var v0: UInt64 = k0 ^ 0x736f_6d65_7073_6575, v1: UInt64 = k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee
        var v2: UInt64 = k0 ^ 0x6c79_6765_6e65_7261, v3: UInt64 = k1 ^ 0x7465_6462_7974_6573
        func round() {
            v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }
        func compress(_ m: UInt64) { v3 ^= m; round(); round(); v0 ^= m }
        var word: UInt64 = 0, filled = 0
        for byte in message {
            word |= UInt64(byte) << (8 * filled)
            filled += 1
            if filled == 8 { compress(word); word = 0; filled = 0 }
        }
        compress(word | UInt64(truncatingIfNeeded: message.count) << 56)
        v2 ^= 0xee
        for _ in 0..<4 { round() }
        let low = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xdd
        for _ in 0..<4 { round() }
        return NameDigest(low: low, high: v0 ^ v1 ^ v2 ^ v3)
    }

    /// What the index holds for a username: its skeleton (`Username.skeleton`), so look-alikes meet.
    package func username(_ username: String) -> NameDigest {
        digest(Array("username\u{0}".utf8) + Array(Username.skeleton(username).utf8))
    }

    package func email(_ email: String) -> NameDigest {
        digest(Array("email\u{0}".utf8) + Array(email.lowercased().utf8))
    }

    /// Stored beside an index made with this key: an index made with another does not match it.
    package var check: NameDigest { digest(Array("pantry name key check".utf8)) }
}

/// A username's or an email's keyed digest (`NameKey`).
package struct NameDigest: Hashable, Sendable {
    package var low: UInt64
    package var high: UInt64

    package init(low: UInt64, high: UInt64) { self.low = low; self.high = high }
}

private extension UInt64 {
    func rotatedLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}
