import Foundation
import PantryJSON

/// A question to a projection worker (`schemas/zeromq.md`, queries), e.g.
/// `{"query": "top", "limit": 10, "after": 42}`; absent fields are left out of the JSON. `after`
/// asks the worker to answer only once it has applied that log position (read-your-writes),
/// waiting at most `wait` milliseconds. `query.worker` is the worker it is sent to.
package struct QueryRequest: Hashable, Sendable {
    package var query: WorkerQuery
    package var after: Int64?
    package var wait: Int?
    package var userId: String?
    package var recipeId: String?
    package var text: String?
    package var limit: Int?
    /// Where a page of a list starts: the `next` of the page before.
    package var offset: Int?
    /// Where a page of a recipe's tips starts: the `next` of the page before, as the worker gave it.
    package var cursor: String?
    package var radius: Int?

    package static let defaultWaitMilliseconds = 2_000
    package static let maxWaitMilliseconds = 10_000

    package init(_ query: WorkerQuery, after: Int64? = nil, userId: String? = nil, recipeId: String? = nil,
                text: String? = nil, limit: Int? = nil, radius: Int? = nil) {
        self.query = query
        self.after = after
        self.userId = userId
        self.recipeId = recipeId
        self.text = text
        self.limit = limit
        self.radius = radius
    }

    /// The fields a query may have; any other is refused, as a command's are, so a misspelt
    /// `limt` is an error rather than a silently ignored default.
    package static let fields: Set<String> = ["query", "after", "wait", "userId", "recipeId", "text", "limit", "offset", "cursor", "radius"]

    package struct UnknownField: Error, CustomStringConvertible {
        package var name: String
        package var description: String { "unknown field '\(name.prefix(64))'" }
    }

    package struct UnknownQuery: Error, CustomStringConvertible {
        package var worker: WorkerName
        package var name: String
        package var description: String { "the \(worker) worker has no query '\(name.prefix(64))'" }
    }

    /// Reads a query as `worker` receives it.
    package init(json: Data, worker: WorkerName) throws {
        self = try json.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                if let unknown = json.names.first(where: { !Self.fields.contains($0) }) { throw UnknownField(name: unknown) }
                let name = try json.string("query")
                guard let query = WorkerQuery(name, of: worker) else { throw UnknownQuery(worker: worker, name: name) }
                var request = QueryRequest(
                    query, after: try json.optionalInt("after").map(Int64.init),
                    userId: try json.optionalString("userId"), recipeId: try json.optionalString("recipeId"),
                    text: try json.optionalString("text"), limit: try json.optionalInt("limit"), radius: try json.optionalInt("radius"))
                request.wait = try json.optionalInt("wait")
                request.offset = try json.optionalInt("offset")
                request.cursor = try json.optionalString("cursor")
                return request
            }
        }
    }

    /// The query as the API sends it, with only the fields that are set, written directly: a
    /// `JSONEncoder` per query, with the decoder that read the answer, cost the API a tenth of a
    /// read that a worker answers.
    package var document: Data {
        var json = JSONObjectWriter()
        json.field("query", query.name)
        if let after { json.field("after", after) }
        if let wait { json.field("wait", wait) }
        json.field("userId", userId)
        json.field("recipeId", recipeId)
        json.field("text", text)
        if let limit { json.field("limit", limit) }
        if let offset { json.field("offset", offset) }
        json.field("cursor", cursor)
        if let radius { json.field("radius", radius) }
        return Data(json.finish())
    }

    /// The question without how long to wait for it: two requests with the same question get
    /// the same answer at the same position.
    package var question: QueryRequest {
        var question = self
        question.after = nil
        question.wait = nil
        return question
    }
}
