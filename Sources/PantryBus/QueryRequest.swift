import Foundation

/// A question to a projection worker (`schemas/zeromq.md`, queries), e.g.
/// `{"query": "top", "limit": 10, "after": 42}`; absent fields are left out of the JSON. `after`
/// asks the worker to answer only once it has applied that log position (read-your-writes),
/// waiting at most `wait` milliseconds.
public struct QueryRequest: Codable, Hashable, Sendable {
    public var query: String
    public var after: Int64?
    public var wait: Int?
    public var userId: String?
    public var recipeId: String?
    public var text: String?
    public var limit: Int?
    public var radius: Int?

    public static let defaultWaitMilliseconds = 2_000
    public static let maxWaitMilliseconds = 10_000

    public init(query: String, after: Int64? = nil, userId: String? = nil, recipeId: String? = nil,
                text: String? = nil, limit: Int? = nil, radius: Int? = nil) {
        self.query = query
        self.after = after
        self.userId = userId
        self.recipeId = recipeId
        self.text = text
        self.limit = limit
        self.radius = radius
    }

    /// The question without how long to wait for it: two requests with the same question get
    /// the same answer at the same position.
    public var question: QueryRequest {
        var question = self
        question.after = nil
        question.wait = nil
        return question
    }
}
