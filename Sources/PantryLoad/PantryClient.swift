import Curl
import Foundation

/// Pantry's HTTP API as the load test calls it, over one libcurl handle: one kept-alive
/// connection, reused for every request. Not thread-safe: one per thread.
public final class PantryClient {
    public let baseURL: String
    let timeout: Double
    private let easy = CurlEasy()
    private let decoder = JSONDecoder()
    private let encoder = JSONEncoder()

    public init(baseURL: String, timeout: Double) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeout = timeout
    }

    public func register(username: String, email: String, password: String) throws(CurlError) -> HTTPResponse {
        try send(.post, "/v1/accounts", body: ["username": username, "email": email, "password": password])
    }

    public func logIn(username: String, password: String) throws(CurlError) -> HTTPResponse {
        try send(.post, "/v1/sessions", body: ["username": username, "password": password])
    }

    public func useIngredient(_ item: Item, token: String, key: String) throws(CurlError) -> HTTPResponse {
        try send(.post, "/v1/me/owned-ingredients", body: ["recipeId": item.recipeId, "ingredient": item.ingredient],
                 token: token, key: key)
    }

    public func top(_ limit: Int, token: String, after: Int64? = nil) throws(CurlError) -> HTTPResponse {
        try send(.get, "/v1/leaderboard?limit=\(limit)" + (after.map { "&after=\($0)" } ?? ""), token: token)
    }

    public func me(token: String, after: Int64? = nil) throws(CurlError) -> HTTPResponse {
        try send(.get, "/v1/leaderboard/me" + (after.map { "?after=\($0)" } ?? ""), token: token)
    }

    public func ready() throws(CurlError) -> HTTPResponse {
        try send(.get, "/ready")
    }

    /// The answer's JSON as `T`, or nil when it is not that.
    public func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) -> T? {
        try? decoder.decode(type, from: response.body)
    }

    /// A problem document's `code`.
    public func problemCode(_ response: HTTPResponse) -> String? {
        decode(Reply.Problem.self, response)?.code
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, body: [String: String]? = nil,
                      token: String? = nil, key: String? = nil) throws(CurlError) -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let key { headers.append(("Idempotency-Key", key)) }
        var data: Data?
        if let body {
            headers.append(("Content-Type", "application/json"))
            // A dictionary of strings always encodes.
            data = try! encoder.encode(body)
        }
        return try easy.perform(HTTPRequest(method: method, url: baseURL + path, headers: headers, body: data,
                                            connectTimeout: min(timeout, 5), timeout: timeout, maxBodyBytes: 1 << 20))
    }
}

/// The answers the load test reads.
public enum Reply {
    public struct Problem: Decodable { public var code: String }
    public struct Session: Decodable { public var token: String; public var userId: String }
    public struct Accepted: Decodable { public var position: Int64 }
    public struct Entry: Decodable { public var rank: Int; public var userId: String; public var points: Int }
    public struct Me: Decodable { public var position: Int64; public var result: Entry }
    public struct Top: Decodable { public var position: Int64; public var result: [Entry] }
    public struct Ready: Decodable {
        public struct Worker: Decodable { public var position: Int64 }
        public var head: Int64
        public var workers: [String: Worker]
    }
}
