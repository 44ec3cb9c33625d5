import Foundation

/// A question to a worker (`schemas/zeromq.md`, queries): `{"query": "top", "limit": 10, "after": 42}`.
/// `after` asks the worker to answer only once it has applied that log position (read-your-writes),
/// waiting at most `wait` milliseconds.
struct QueryRequest: Decodable {
    var query: String
    var after: Int64?
    var wait: Int?
    var userId: String?
    var recipeId: String?
    var text: String?
    var limit: Int?
    var radius: Int?

    static let defaultWaitMilliseconds = 2_000
    static let maxWaitMilliseconds = 10_000
}

/// Why a query was not answered; `code` is stable.
struct QueryError: Error, Encodable {
    var code: String
    var message: String

    static func badQuery(_ message: String) -> QueryError { QueryError(code: "bad_query", message: message) }
}

/// The reply: the result and the checkpoint it was read at, or an error.
struct QueryReply<Result: Encodable>: Encodable {
    var position: Int64
    var result: Result
}

struct QueryFailure: Encodable {
    var position: Int64
    var error: QueryError
}
