/// The projection workers, by the name their queries are addressed to: the name of the worker's
/// projection and file, of its socket (`<name>-queries.sock`) and of its `PANTRY_<NAME>_QUERIES`.
package enum WorkerName: String, CaseIterable, Sendable {
    case leaderboard, carts, favourites, groceries, experiences

    /// Every question this worker answers (`status` and `swap` included).
    package var queries: [WorkerQuery] {
        let own: [WorkerQuery] = switch self {
        case .leaderboard: WorkerQuery.Leaderboard.allCases.map(WorkerQuery.leaderboard)
        case .carts: WorkerQuery.Carts.allCases.map(WorkerQuery.carts)
        case .favourites: WorkerQuery.Favourites.allCases.map(WorkerQuery.favourites)
        case .groceries: WorkerQuery.Groceries.allCases.map(WorkerQuery.groceries)
        case .experiences: WorkerQuery.Experiences.allCases.map(WorkerQuery.experiences)
        }
        return [.status(self), .swap(self)] + own
    }
}

/// A question with the worker that answers it (`schemas/zeromq.md`, queries): a query a worker does
/// not answer cannot be written, and a worker's switch over them is exhaustive. The raw values are
/// the `query` field on the wire (`bus/query.schema.json`).
package enum WorkerQuery: Hashable, Sendable {
    /// How the worker is fed; every worker answers it.
    case status(WorkerName)
    /// Adopt the finished rebuild beside the worker's file (`pantry replay` while the worker runs).
    case swap(WorkerName)
    case leaderboard(Leaderboard)
    case carts(Carts)
    case favourites(Favourites)
    case groceries(Groceries)
    case experiences(Experiences)

    package static let statusName = "status"
    package static let swapName = "swap"

    package enum Leaderboard: String, CaseIterable, Sendable { case top, entry, around }
    package enum Carts: String, CaseIterable, Sendable { case cart, cooking }
    package enum Favourites: String, CaseIterable, Sendable { case list, search, suggestion }
    package enum Groceries: String, CaseIterable, Sendable { case list }
    package enum Experiences: String, CaseIterable, Sendable { case list }

    package var worker: WorkerName {
        switch self {
        case .status(let worker), .swap(let worker): worker
        case .leaderboard: .leaderboard
        case .carts: .carts
        case .favourites: .favourites
        case .groceries: .groceries
        case .experiences: .experiences
        }
    }

    /// The `query` field.
    package var name: String {
        switch self {
        case .status: Self.statusName
        case .swap: Self.swapName
        case .leaderboard(let query): query.rawValue
        case .carts(let query): query.rawValue
        case .favourites(let query): query.rawValue
        case .groceries(let query): query.rawValue
        case .experiences(let query): query.rawValue
        }
    }

    /// The query named `name` of `worker`; nil when that worker has none of that name.
    package init?(_ name: String, of worker: WorkerName) {
        if name == Self.statusName {
            self = .status(worker)
            return
        }
        if name == Self.swapName {
            self = .swap(worker)
            return
        }
        let query: WorkerQuery? = switch worker {
        case .leaderboard: Leaderboard(rawValue: name).map(Self.leaderboard)
        case .carts: Carts(rawValue: name).map(Self.carts)
        case .favourites: Favourites(rawValue: name).map(Self.favourites)
        case .groceries: Groceries(rawValue: name).map(Self.groceries)
        case .experiences: Experiences(rawValue: name).map(Self.experiences)
        }
        guard let query else { return nil }
        self = query
    }
}
