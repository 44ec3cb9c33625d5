import NIOCore
import Synchronization
import PantryWire
import PantryBounded

/// Recipe answers the fetch worker said stay the same for a while (`reusableForMs`: a catalog
/// answer, or a cached one until its `ageSeconds` changes), kept at most `lifetime`, so a popular
/// search is answered without the round trip to the worker (its 80 µs of API CPU was four times
/// the HTTP server's own). Only such answers come here, so nothing here made an upstream call or
/// spent a client's budget, and none is `staleCache` or `fallback`. Keyed by the validated request:
/// these answers are the same for every client.
final class RecipeReplyCache: Sendable {
    private struct Entry {
        var body: ByteBuffer
        var until: ContinuousClock.Instant
    }

    private let entries: Mutex<GenerationalCache<FetchRequest, Entry>>
    private let lifetime: Duration
    /// The real clock, but in tests, which move their own past an answer's time.
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `lifetime` zero keeps nothing.
    init(lifetime: Duration, capacity: Int = 4 << 20, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.lifetime = lifetime
        self.now = now
        entries = Mutex(GenerationalCache(capacity: capacity))
    }

    func body(_ request: FetchRequest) -> ByteBuffer? {
        let now = self.now()
        return entries.withLock { entries in
            guard let entry = entries.value(request) else { return nil }
            guard entry.until > now else {
                entries.remove(request)
                return nil
            }
            return entry.body
        }
    }

    /// The bytes kept: never more than the capacity.
    var cost: Int { entries.withLock { $0.cost } }

    /// Keeps `body` for the worker's `reusableForMs`, at most `lifetime`.
    func keep(_ request: FetchRequest, _ body: ByteBuffer, reusableForMs: Int) {
        let kept = min(lifetime, .milliseconds(reusableForMs))
        guard kept > .zero else { return }
        let until = now() + kept
        entries.withLock { $0.set(request, Entry(body: body, until: until), cost: body.readableBytes) }
    }
}
