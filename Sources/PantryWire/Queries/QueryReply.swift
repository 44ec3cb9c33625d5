import Foundation

/// Why a query was not answered; `code` is stable.
package struct QueryError: Error, Encodable {
    package var code: String
    package var message: String

    package init(code: String, message: String) { self.code = code; self.message = message }

    package static func badQuery(_ message: String) -> QueryError { QueryError(code: "bad_query", message: message) }
}

/// The reply: the result and the checkpoint it was read at, or an error.
package struct QueryReply<Result: Encodable>: Encodable {
    package var position: Int64
    package var result: Result

    package init(position: Int64, result: Result) { self.position = position; self.result = result }
}

package struct QueryFailure: Encodable {
    package var position: Int64
    package var error: QueryError

    package init(position: Int64, error: QueryError) { self.position = position; self.error = error }
}
