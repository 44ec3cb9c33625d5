import Foundation

/// Why a query was not answered.
package struct QueryError: Error, Encodable {
    /// Stable: the API maps each to its HTTP answer (`bus/query-answer.schema.json` lists them).
    package enum Code: String, CaseIterable, Sendable, Encodable {
        case badQuery = "bad_query"
        case notFound = "not_found"
        case notCaughtUp = "not_caught_up"
        case positionNotWritten = "position_not_written"
        /// A `swap` that left the worker's file as it was (see the message).
        case swapFailed = "swap_failed"
    }

    package var code: Code
    package var message: String

    package init(code: Code, message: String) { self.code = code; self.message = message }

    package static func badQuery(_ message: String) -> QueryError { QueryError(code: .badQuery, message: message) }
}

/// The reply: the result and the checkpoint it was read at, or an error. A page of a list also
/// says where the next one starts (`next`, the `offset` to ask), when there is one.
package struct QueryReply<Result: Encodable>: Encodable {
    package var position: Int64
    package var result: Result
    package var next: Int?

    package init(position: Int64, result: Result, next: Int? = nil) {
        self.position = position; self.result = result; self.next = next
    }
}

/// A page whose next one starts after a key rather than at an offset (a recipe's tips, which
/// others keep writing): `next`, the `cursor` to ask, when there may be one.
package struct KeyedPageReply<Result: Encodable>: Encodable {
    package var position: Int64
    package var result: Result
    package var next: String?

    package init(position: Int64, result: Result, next: String?) {
        self.position = position; self.result = result; self.next = next
    }
}

package struct QueryFailure: Encodable {
    package var position: Int64
    package var error: QueryError

    package init(position: Int64, error: QueryError) { self.position = position; self.error = error }
}
