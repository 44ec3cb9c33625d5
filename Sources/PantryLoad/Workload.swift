import PantryRandom

/// The kinds of request the load test sends, each with its own latency histogram.
package enum OperationKind: String, CaseIterable, Codable, Sendable {
    /// `UseOwnedIngredient` with a (recipe, ingredient) new for the user: must earn one point.
    case increment
    /// A (recipe, ingredient) the user already earned a point for, under a new Idempotency-Key:
    /// must be refused with 409 `already_used`, proving that points are not doubled.
    case `repeat`
    /// `GET /v1/leaderboard?limit=10`.
    case top10
    /// `GET /v1/leaderboard/me`.
    case myRank
}

/// A recipe and one of its own ingredients: what one point is earned for.
package struct Item: Hashable, Sendable, Comparable {
    package var recipeId: String
    package var ingredient: String

    package init(recipeId: String, ingredient: String) {
        self.recipeId = recipeId; self.ingredient = ingredient
    }

    package static func < (a: Item, b: Item) -> Bool { (a.recipeId, a.ingredient) < (b.recipeId, b.ingredient) }
}

/// One request a client makes, for the user with index `user` (0 ..< users).
package struct LoadOperation: Equatable, Sendable {
    package var kind: OperationKind
    package var user: Int
    /// For `increment` and `repeat`.
    package var item: Item?
    /// The Idempotency-Key of a command: unique in the run, kept for its retries.
    package var key: String?
}

/// The shares of each kind of request.
package struct WorkloadMix: Sendable, Codable, Equatable {
    /// The share of requests that are leaderboard reads.
    package var readRatio: Double
    /// The share of reads that ask for the top 10 (the rest ask for the user's own rank).
    package var top10Share: Double
    /// The share of commands that deliberately repeat an earned item.
    package var repeatRatio: Double

    package init(readRatio: Double = 0.5, top10Share: Double = 0.5, repeatRatio: Double = 0.02) {
        self.readRatio = readRatio
        self.top10Share = top10Share
        self.repeatRatio = repeatRatio
    }
}

/// The requests of one client, drawn from its own seeded stream: with the same seed, client and
/// mix, the same sequence, whatever the other clients or the server do (as long as every
/// increment is accepted, since repeats are drawn from the accepted ones).
package struct ClientWorkload: Sendable {
    /// Repeats are drawn from this many of the client's latest accepted items.
    static let remembered = 256
    /// Draws of a user before a client gives up on finding one with an item left (then it reads).
    static let userDraws = 16

    package let client: Int
    let users: Int
    let mix: WorkloadMix
    let keyPrefix: String
    /// This client's share of the real (recipe, ingredient) pairs: every `clients`th, from its own
    /// index, so that no two clients ever send the same item for the same user.
    private let items: [Item]
    private var generator: SeededGenerator
    private var issued = 0
    /// Per user, how many of `items` this client has sent.
    private var sentItems: [Int: Int] = [:]
    private var accepted: [(user: Int, item: Item)] = []
    private var nextSlot = 0

    /// `items` are the same, in the same order, for every client; `keyPrefix` makes the
    /// Idempotency-Keys of this run unique.
    package init(seed: UInt64, client: Int, clients: Int, users: Int, items: [Item], mix: WorkloadMix, keyPrefix: String) {
        precondition(users > 0 && clients > 0)
        self.client = client
        self.users = users
        self.mix = mix
        self.keyPrefix = keyPrefix
        self.items = stride(from: client, to: items.count, by: clients).map { items[$0] }
        generator = SeededGenerator(seed: seed, stream: client)
    }

    package mutating func next() -> LoadOperation {
        var user = Int.random(in: 0..<users, using: &generator)
        if Double.random(in: 0..<1, using: &generator) < mix.readRatio {
            return read(user)
        }
        issued += 1
        let key = "\(keyPrefix)-\(client)-\(issued)"
        if Double.random(in: 0..<1, using: &generator) < mix.repeatRatio, !accepted.isEmpty {
            let earlier = accepted[Int.random(in: 0..<accepted.count, using: &generator)]
            return LoadOperation(kind: .repeat, user: earlier.user, item: earlier.item, key: key)
        }
        // The next of this client's items the user has not been sent yet: new for the user.
        var draws = 1
        while sentItems[user, default: 0] >= items.count {
            guard draws < Self.userDraws else { return read(user) }
            user = Int.random(in: 0..<users, using: &generator)
            draws += 1
        }
        let item = items[sentItems[user, default: 0]]
        sentItems[user, default: 0] += 1
        return LoadOperation(kind: .increment, user: user, item: item, key: key)
    }

    private mutating func read(_ user: Int) -> LoadOperation {
        let top = Double.random(in: 0..<1, using: &generator) < mix.top10Share
        return LoadOperation(kind: top ? .top10 : .myRank, user: user)
    }

    /// An increment was accepted: it may be repeated later.
    package mutating func accepted(_ operation: LoadOperation) {
        guard operation.kind == .increment, let item = operation.item else { return }
        if accepted.count < Self.remembered {
            accepted.append((operation.user, item))
        } else {
            accepted[nextSlot] = (operation.user, item)
            nextSlot = (nextSlot + 1) % Self.remembered
        }
    }
}
