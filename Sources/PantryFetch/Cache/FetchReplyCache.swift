import Foundation
import Synchronization
import PantryWire
import PantryBounded

/// The encoded answers the cache and the catalog gave, by the request's canonical key, capped in
/// bytes. Only answers that are the same for every caller are kept: never `staleCache` or
/// `fallback` (they say the upstream could not be asked, which is true only now), never an
/// upstream call's (its client spent budget on it; the cache serves it next), and only for kinds
/// that are asked again. Read without the service's actor: the socket thread answers a hit itself.
final class FetchReplyCache: Sendable {
    private let answers: Mutex<GenerationalCache<String, EncodedReply>>

    /// 16 MiB: about 5,000 search pages of ten summaries.
    init(capacity: Int = 16 << 20) {
        answers = Mutex(GenerationalCache(capacity: capacity))
    }

    /// Kinds asked again with the same answer. Not `random` (each is a new draw), `feed` (each
    /// session shuffles with its own seed and reads a page once) or `image` (bytes, not JSON).
    static func remembers(_ kind: FetchRequest.Kind) -> Bool {
        switch kind {
        case .search, .byIngredients, .detail, .autocomplete, .featured, .liked: true
        case .random, .feed, .image: false
        }
    }

    /// The reply for `key` at `now` (seconds since 1970), if one is remembered and not expired.
    func reply(_ key: String, at now: Double) -> Data? {
        answers.withLock { $0.value(key) }?.reply(at: now)
    }

    func remember(_ key: String, _ answer: EncodedReply) {
        answers.withLock { $0.set(key, answer, cost: answer.cost + key.utf8.count) }
    }

    /// After the cache entry of `key` changed.
    func forget(_ key: String) {
        answers.withLock { $0.remove(key) }
    }

    var cost: Int { answers.withLock { $0.cost } }
}
