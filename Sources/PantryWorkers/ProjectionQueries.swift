import Foundation
import GRDB
import PantryBus
import PantryProjections
import PantryWire

extension WorkerName {
    /// The worker that keeps `projection` (`ProjectionCatalog` has one projection per worker name).
    init(_ projection: any Projection) {
        guard let worker = WorkerName(rawValue: projection.name) else { preconditionFailure("no worker keeps \(projection.name)") }
        self = worker
    }
}

/// The queries each worker answers, encoded as a JSON reply.
enum ProjectionQueries {
    /// How the worker has been fed, reported by the `status` query.
    struct FeedStatus: Encodable {
        var projection: String
        var announcedHead: Int64
        var eventsReadFromLog: Int
        var gapsHealed: Int
    }

    /// Answers already encoded at one checkpoint, by question; emptied when the checkpoint moves.
    /// `status` is never kept: it reports the feed, which moves without the checkpoint.
    struct QueryReplyCache {
        static let capacity = 10_000
        private var position: Int64 = -1
        private var replies: [QueryRequest: Data] = [:]

        mutating func reply(to request: QueryRequest, at position: Int64) -> Data? {
            guard position == self.position else {
                replies.removeAll(keepingCapacity: true)
                self.position = position
                return nil
            }
            return replies[request.question]
        }

        mutating func remember(_ reply: Data, for request: QueryRequest, at position: Int64) {
            if case .status = request.query { return }
            guard position == self.position, replies.count < Self.capacity else { return }
            replies[request.question] = reply
        }
    }

    /// The most items a page of a person's list holds, and the furthest a page may start.
    static let pageSize = 200
    static let maxOffset = 100_000

    /// `position` is the follower's: the file may be behind it only by events this projection ignores.
    static func answer(_ request: QueryRequest, store: ProjectionStore, position: Int64,
                       feed: FeedStatus, encoder: JSONEncoder) throws -> Data {
        func reply(_ result: some Encodable) throws -> Data {
            try encoder.encode(QueryReply(position: position, result: result))
        }
        func required(_ value: String?, _ name: String) throws -> String {
            guard let value, !value.isEmpty, value.utf8.count <= 256 else { throw QueryError.badQuery("'\(name)' is required") }
            return value
        }
        func bounded(_ value: Int?, _ name: String, default fallback: Int, max: Int) throws -> Int {
            let value = value ?? fallback
            guard (0...max).contains(value) else { throw QueryError.badQuery("'\(name)' must be from 0 to \(max)") }
            return value
        }
        /// One page of a person's list: `limit` items (200, the most) from `offset`, and where the
        /// next page starts when there is one. One person's lists are bounded (1,000 items at most),
        /// and a page is what one answer carries: 100,000 grocery items in one answer of 32.7 MB took
        /// the API to 479 MiB and another user's small read to 619 ms.
        func page<Item>(_ items: [Item]) throws -> (items: ArraySlice<Item>, next: Int?) {
            let limit = try bounded(request.limit, "limit", default: Self.pageSize, max: Self.pageSize)
            let offset = try bounded(request.offset, "offset", default: 0, max: Self.maxOffset)
            let end = min(items.count, offset + limit)
            return (items[min(offset, end)..<end], end < items.count ? end : nil)
        }
        func replyPage<Item: Encodable>(_ items: [Item]) throws -> Data {
            let (items, next) = try page(items)
            return try encoder.encode(QueryReply(position: position, result: Array(items), next: next))
        }

        switch request.query {
        case .status:
            return try reply(feed)
        case .swap:
            // The worker's loop takes it before any answer: it changes the file, not a read.
            throw QueryError.badQuery("swap is not a read")
        case .leaderboard(.top):
            let limit = try bounded(request.limit, "limit", default: 10, max: 100)
            return try reply(store.read { try LeaderboardProjection.top(limit, in: $0) })
        case .leaderboard(.entry):
            let userId = try required(request.userId, "userId")
            guard let entry = try store.read({ try LeaderboardProjection.entry(userId, in: $0) }) else {
                throw QueryError(code: .notFound, message: "user \(userId) is not on the leaderboard")
            }
            return try reply(entry)
        case .leaderboard(.around):
            let userId = try required(request.userId, "userId")
            let radius = try bounded(request.radius, "radius", default: 3, max: 25)
            return try reply(store.read { try LeaderboardProjection.around(userId, radius: radius, in: $0) })
        case .carts(.cart):
            let userId = try required(request.userId, "userId")
            let cart = try store.read { try CartsProjection.cart(userId, in: $0) }
            let (lines, next) = try page(cart.lines)
            return try encoder.encode(QueryReply(position: position, result: Cart(lines: Array(lines), totals: cart.totals), next: next))
        case .carts(.cooking):
            // At most `Decider.maxCooking` a person: one answer.
            let userId = try required(request.userId, "userId")
            return try reply(store.read { try CartsProjection.cooking(userId, in: $0) })
        case .favourites(.list):
            let userId = try required(request.userId, "userId")
            return try replyPage(store.read { try FavouritesProjection.list(userId, in: $0) })
        case .favourites(.search):
            let userId = try required(request.userId, "userId")
            let text = try required(request.text, "text")
            return try replyPage(store.read { try FavouritesProjection.search(userId, text: text, in: $0) })
        case .favourites(.suggestion):
            let userId = try required(request.userId, "userId")
            return try reply(store.read { try FavouritesProjection.suggestion(userId, in: $0) })
        case .groceries(.list):
            let userId = try required(request.userId, "userId")
            return try replyPage(store.read { try GroceriesProjection.list(userId, in: $0) })
        case .experiences(.list):
            let recipeId = try required(request.recipeId, "recipeId")
            let limit = try bounded(request.limit, "limit", default: 50, max: 200)
            let cursor = try request.cursor.map { text in
                guard let cursor = ExperiencesProjection.Cursor(text: text) else {
                    throw QueryError.badQuery("'cursor' is not one this API gave")
                }
                return cursor
            }
            let (experiences, next) = try store.read { try ExperiencesProjection.forRecipe(recipeId, limit: limit, after: cursor, in: $0) }
            return try encoder.encode(KeyedPageReply(position: position, result: experiences, next: next?.text))
        }
    }
}
