import PantryRandom

/// The kinds of request the load test sends, each with its own latency histogram.
package enum OperationKind: String, CaseIterable, Codable, Sendable {
    /// `UseOwnedIngredient` with a (recipe, ingredient) new for the user: must earn one point.
    case increment
    /// A (recipe, ingredient) the user already earned a point for, under a new Idempotency-Key:
    /// must be refused with 409 `already_used`, proving that points are not doubled.
    case `repeat`
    /// The recipe of a user's next increments put in their cart (`AdjustCart` +1) and its timer
    /// started (`StartCooking`), as the web app does before "I have this": a point needs its
    /// recipe cooking. Two requests; its latency is both.
    case cook
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
    /// For `increment` and `repeat`; for `cook`, the first item of the recipe it cooks.
    package var item: Item?
    /// The Idempotency-Key of a command (for `cook`, the prefix of its two): unique in the run,
    /// kept for its retries.
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
///
/// Its users earn points as people do, within the core's pace: each client earns the points of
/// its own users only (every `clients`th), each user at most `pointsPerUser` (the pace's burst, so
/// none is refused however fast the run goes), recipe by recipe, each cooked before its first.
/// More load needs more users, not faster ones.
package struct ClientWorkload: Sendable {
    /// Repeats are drawn from this many of the client's latest accepted items.
    static let remembered = 256
    /// Draws of a user before a client gives up on finding one with an item left (then it reads).
    static let userDraws = 16

    package let client: Int
    let users: Int
    let mix: WorkloadMix
    let keyPrefix: String
    /// The real (recipe, ingredient) pairs, a recipe's together: a user earns them in this order.
    private let items: [Item]
    /// The users whose points this client earns: no other client sends a command for them.
    private let ownUsers: [Int]
    /// Items a user may earn: `pointsPerUser`, or all of them when fewer.
    private let itemsPerUser: Int
    private var generator: SeededGenerator
    private var issued = 0
    /// Per user, how many of `items` this client has sent.
    private var sentItems: [Int: Int] = [:]
    /// Per user, the recipe this client last cooked for them.
    private var cooking: [Int: String] = [:]
    private var accepted: [(user: Int, item: Item)] = []
    private var nextSlot = 0

    /// `items` are the same, in the same order, for every client; `keyPrefix` makes the
    /// Idempotency-Keys of this run unique.
    package init(seed: UInt64, client: Int, clients: Int, users: Int, items: [Item], mix: WorkloadMix, keyPrefix: String,
                 pointsPerUser: Int) {
        precondition(users > 0 && clients > 0 && pointsPerUser > 0)
        self.client = client
        self.users = users
        self.mix = mix
        self.keyPrefix = keyPrefix
        self.items = items
        ownUsers = Array(stride(from: client, to: users, by: clients))
        itemsPerUser = min(items.count, pointsPerUser)
        generator = SeededGenerator(seed: seed, stream: client)
    }

    package mutating func next() -> LoadOperation {
        let reader = Int.random(in: 0..<users, using: &generator)
        if Double.random(in: 0..<1, using: &generator) < mix.readRatio || ownUsers.isEmpty {
            return read(reader)
        }
        issued += 1
        let key = "\(keyPrefix)-\(client)-\(issued)"
        if Double.random(in: 0..<1, using: &generator) < mix.repeatRatio, !accepted.isEmpty {
            let earlier = accepted[Int.random(in: 0..<accepted.count, using: &generator)]
            return LoadOperation(kind: .repeat, user: earlier.user, item: earlier.item, key: key)
        }
        // The next item one of this client's users has not been sent yet: new for the user.
        var user = ownUsers[Int.random(in: 0..<ownUsers.count, using: &generator)]
        var draws = 1
        while sentItems[user, default: 0] >= itemsPerUser {
            guard draws < Self.userDraws else { return read(reader) }
            user = ownUsers[Int.random(in: 0..<ownUsers.count, using: &generator)]
            draws += 1
        }
        let item = items[sentItems[user, default: 0]]
        // Its recipe cooks first; the item comes next time the user is drawn.
        guard cooking[user] == item.recipeId else {
            cooking[user] = item.recipeId
            return LoadOperation(kind: .cook, user: user, item: item, key: key)
        }
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
