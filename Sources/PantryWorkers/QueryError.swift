import Foundation

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
