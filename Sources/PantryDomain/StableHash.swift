/// FNV-1a, 64 bits: the same value in every process and every run (Swift's `Hasher` is seeded
/// per process), for fingerprints that are stored and for ids derived from other ids.
package struct StableHash {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    package static func of(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = StableHash()
        hash.combine(bytes)
        return hash.value
    }

    /// 16 lower-case hex digits.
    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
