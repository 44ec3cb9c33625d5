/// SplitMix64: a small, fast generator whose whole sequence follows from one 64-bit seed, so a
/// load test with the same `--seed` makes the same choices, the catalog's feed shuffles a session
/// the same way every time, and a seeded test that fails can be replayed from the seed it printed.
/// The one copy in the package: the load test, the fetch worker and the tests draw from it.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    /// An independent stream for one client: its own sequence, whatever the other clients draw.
    package init(seed: UInt64, stream: Int) {
        var mixer = SeededGenerator(seed: seed ^ (0x9E37_79B9_7F4A_7C15 &* UInt64(stream + 1)))
        state = mixer.next()
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
