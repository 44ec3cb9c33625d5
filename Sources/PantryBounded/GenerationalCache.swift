/// A size-capped map that forgets what was least recently used, about: two generations, `recent`
/// and `older`; a hit in `older` moves to `recent`, and when `recent` holds half the capacity it
/// becomes `older` and the previous `older` is dropped. Every step is O(1) and the total never
/// exceeds `capacity` (each entry's `cost`, e.g. its bytes), which is all an answer cache needs
/// from an LRU without a linked list to keep.
package struct GenerationalCache<Key: Hashable, Value> {
    private var recent: [Key: (value: Value, cost: Int)] = [:]
    private var older: [Key: (value: Value, cost: Int)] = [:]
    private var recentCost = 0
    private var olderCost = 0
    package let capacity: Int

    package init(capacity: Int) { self.capacity = capacity }

    /// What both generations hold, in the entries' costs: never more than `capacity`.
    package var cost: Int { recentCost + olderCost }
    package var count: Int { recent.count + older.count }

    package mutating func value(_ key: Key) -> Value? {
        if let found = recent[key] { return found.value }
        guard let found = older.removeValue(forKey: key) else { return nil }
        olderCost -= found.cost
        insert(key, found.value, cost: found.cost)
        return found.value
    }

    /// Keeps `value` unless it alone costs more than half the capacity (it would evict everything).
    package mutating func set(_ key: Key, _ value: Value, cost: Int) {
        remove(key)
        guard cost <= capacity / 2 else { return }
        insert(key, value, cost: cost)
    }

    package mutating func remove(_ key: Key) {
        if let gone = recent.removeValue(forKey: key) { recentCost -= gone.cost }
        if let gone = older.removeValue(forKey: key) { olderCost -= gone.cost }
    }

    private mutating func insert(_ key: Key, _ value: Value, cost: Int) {
        if recentCost + cost > capacity / 2 {
            older = recent
            olderCost = recentCost
            recent = [:]
            recentCost = 0
        }
        recent[key] = (value, cost)
        recentCost += cost
    }
}
