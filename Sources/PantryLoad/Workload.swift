/// The kinds of request the load test sends, each with its own latency histogram.
public enum OperationKind: String, CaseIterable, Codable, Sendable {
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

/// A recipe and an ingredient: what one point is earned for.
public struct Item: Hashable, Sendable {
    public var recipeId: String
    public var ingredient: String
}

/// One request a client makes, for the user with index `user` (0 ..< users).
public struct LoadOperation: Equatable, Sendable {
    public var kind: OperationKind
    public var user: Int
    /// For `increment` and `repeat`.
    public var item: Item?
    /// The Idempotency-Key of a command: unique in the run, kept for its retries.
    public var key: String?
}

/// The shares of each kind of request.
public struct WorkloadMix: Sendable, Codable, Equatable {
    /// The share of requests that are leaderboard reads.
    public var readRatio: Double
    /// The share of reads that ask for the top 10 (the rest ask for the user's own rank).
    public var top10Share: Double
    /// The share of commands that deliberately repeat an earned item.
    public var repeatRatio: Double

    public init(readRatio: Double = 0.5, top10Share: Double = 0.5, repeatRatio: Double = 0.02) {
        self.readRatio = readRatio
        self.top10Share = top10Share
        self.repeatRatio = repeatRatio
    }
}

/// The requests of one client, drawn from its own seeded stream: with the same seed, client and
/// mix, the same sequence, whatever the other clients or the server do (as long as every
/// increment is accepted, since repeats are drawn from the accepted ones).
public struct ClientWorkload: Sendable {
    /// Recipe ids cycle through this many, as a user's cooking would.
    public static let recipes = 500
    /// Repeats are drawn from this many of the client's latest accepted items.
    static let remembered = 256

    public let client: Int
    let users: Int
    let mix: WorkloadMix
    let keyPrefix: String
    private var generator: SeededGenerator
    private var issued = 0
    private var accepted: [(user: Int, item: Item)] = []
    private var nextSlot = 0

    /// `keyPrefix` makes the Idempotency-Keys and ingredients of this run unique.
    public init(seed: UInt64, client: Int, users: Int, mix: WorkloadMix, keyPrefix: String) {
        precondition(users > 0)
        self.client = client
        self.users = users
        self.mix = mix
        self.keyPrefix = keyPrefix
        generator = SeededGenerator(seed: seed, stream: client)
    }

    public mutating func next() -> LoadOperation {
        let user = Int.random(in: 0..<users, using: &generator)
        if Double.random(in: 0..<1, using: &generator) < mix.readRatio {
            let top = Double.random(in: 0..<1, using: &generator) < mix.top10Share
            return LoadOperation(kind: top ? .top10 : .myRank, user: user)
        }
        issued += 1
        let key = "\(keyPrefix)-\(client)-\(issued)"
        if Double.random(in: 0..<1, using: &generator) < mix.repeatRatio, !accepted.isEmpty {
            let earlier = accepted[Int.random(in: 0..<accepted.count, using: &generator)]
            return LoadOperation(kind: .repeat, user: earlier.user, item: earlier.item, key: key)
        }
        // The client and its counter make the ingredient new for every user, in this run.
        let item = Item(recipeId: "r\(Int.random(in: 0..<Self.recipes, using: &generator))",
                        ingredient: "\(keyPrefix) \(client).\(issued)")
        return LoadOperation(kind: .increment, user: user, item: item, key: key)
    }

    /// An increment was accepted: it may be repeated later.
    public mutating func accepted(_ operation: LoadOperation) {
        guard operation.kind == .increment, let item = operation.item else { return }
        if accepted.count < Self.remembered {
            accepted.append((operation.user, item))
        } else {
            accepted[nextSlot] = (operation.user, item)
            nextSlot = (nextSlot + 1) % Self.remembered
        }
    }
}
