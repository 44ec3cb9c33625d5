import Curl
import Foundation
import PantryTokens

/// Pantry's HTTP API as the load test calls it, over one libcurl handle: one kept-alive
/// connection, reused for every request. Not thread-safe: one per thread.
package final class PantryClient {
    package let baseURL: String
    let timeout: Double
    private let easy = CurlEasy()
    private let decoder = JSONDecoder()
    /// Proves the operator on the set-up and clean-up calls (`LoadConfiguration.operatorSigner`).
    private let operatorSigner: TokenSigner?
    /// The certificates an HTTPS deployment's chain must end in, when not the system's.
    let trustedCertificates: String?

    package init(baseURL: String, timeout: Double, operatorSigner: TokenSigner? = nil, trustedCertificates: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeout = timeout
        self.operatorSigner = operatorSigner
        self.trustedCertificates = trustedCertificates
    }

    /// A client of the deployment `configuration` names.
    package convenience init(_ configuration: LoadConfiguration) {
        self.init(baseURL: configuration.url, timeout: configuration.timeout, operatorSigner: configuration.operatorSigner,
                  trustedCertificates: configuration.trustedCertificates)
    }

    package func register(username: String, email: String, password: String) throws(CurlError) -> HTTPResponse {
        try send(.post, "/v1/accounts", body: ["username": username, "email": email, "password": password], asOperator: true)
    }

    package func logIn(username: String, password: String) throws(CurlError) -> HTTPResponse {
        try send(.post, "/v1/sessions", body: ["username": username, "password": password], asOperator: true)
    }

    package func useIngredient(_ item: Item, token: String, key: String) throws(CurlError) -> HTTPResponse {
        try send(.post, "/v1/me/owned-ingredients", body: ["recipeId": item.recipeId, "ingredient": item.ingredient],
                 token: token, key: key)
    }

    /// "Start cooking" a recipe: what its points need.
    package func startCooking(_ recipeId: String, minutes: Int, token: String, key: String) throws(CurlError) -> HTTPResponse {
        let segment = recipeId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? recipeId
        return try send(.post, "/v1/me/cooking/\(segment)", json: Data(#"{"minutes":\#(minutes)}"#.utf8), token: token, key: key)
    }

    package func top(_ limit: Int, token: String, after: Int64? = nil) throws(CurlError) -> HTTPResponse {
        try send(.get, "/v1/leaderboard?limit=\(limit)" + (after.map { "&after=\($0)" } ?? ""), token: token)
    }

    package func me(token: String, after: Int64? = nil) throws(CurlError) -> HTTPResponse {
        try send(.get, "/v1/leaderboard/me" + (after.map { "?after=\($0)" } ?? ""), token: token)
    }

    package func deleteAccount(token: String, password: String) throws(CurlError) -> HTTPResponse {
        try send(.delete, "/v1/me", body: ["password": password], token: token, asOperator: true)
    }

    package func randomRecipes(count: Int) throws(CurlError) -> HTTPResponse {
        try send(.get, "/v1/recipes/random?count=\(count)")
    }

    package func ready() throws(CurlError) -> HTTPResponse {
        try send(.get, "/ready")
    }

    /// The answer's JSON as `T`, or nil when it is not that.
    package func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) -> T? {
        try? decoder.decode(type, from: response.body)
    }

    /// The `"position"` of an answer (a command's or a leaderboard read's), found without decoding
    /// the whole document: on the hot path the load test needs nothing else, and a full decode
    /// of the top 10 cost the client a quarter of its CPU, which the server on the same machine
    /// would miss.
    package static func position(in body: Data) -> Int64? {
        let key = Array(#""position":"#.utf8)
        return body.withUnsafeBytes { bytes -> Int64? in
            guard bytes.count > key.count else { return nil }
            for start in 0...(bytes.count - key.count) where bytes[start] == key[0] {
                guard (0..<key.count).allSatisfy({ bytes[start + $0] == key[$0] }) else { continue }
                var index = start + key.count
                while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
                var value: Int64 = 0
                var digits = 0
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), digits < 18 {
                    value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            return nil
        }
    }

    /// A problem document's `code`.
    package func problemCode(_ response: HTTPResponse) -> String? {
        decode(Reply.Problem.self, response)?.code
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, body: KeyValuePairs<String, String>? = nil,
                      token: String? = nil, key: String? = nil, asOperator: Bool = false) throws(CurlError) -> HTTPResponse {
        try send(method, path, json: body.map(Self.jsonObject), token: token, key: key, asOperator: asOperator)
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, json data: Data?,
                      token: String? = nil, key: String? = nil, asOperator: Bool = false) throws(CurlError) -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if asOperator, let operatorSigner { headers.append((TokenSigner.operatorHeader, operatorSigner.operatorProof())) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let key { headers.append(("Idempotency-Key", key)) }
        if data != nil { headers.append(("Content-Type", "application/json")) }
        return try easy.perform(HTTPRequest(method: method, url: baseURL + path, headers: headers, body: data,
                                            connectTimeout: min(timeout, 5), timeout: timeout, maxBodyBytes: 1 << 20,
                                            trustedCertificates: trustedCertificates))
    }
}

extension PantryClient {
    /// A flat object of strings, written directly: JSONEncoder costs more than the request.
    static func jsonObject(_ fields: KeyValuePairs<String, String>) -> Data {
        var text = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { text += "," }
            text += "\(quoted(key)):\(quoted(value))"
        }
        return Data((text + "}").utf8)
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// The answers the load test reads.
package enum Reply {
    package struct Problem: Decodable { package var code: String }
    package struct Session: Decodable { package var token: String; package var userId: String }
    package struct Entry: Decodable { package var rank: Int; package var userId: String; package var points: Int }
    package struct Me: Decodable { package var position: Int64; package var result: Entry }
    package struct RandomRecipes: Decodable {
        package struct Recipe: Decodable {
            package struct Ingredient: Decodable { package var name: String }
            package var id: String
            package var ingredients: [Ingredient]
        }
        package struct Payload: Decodable { package var recipes: [Recipe] }
        package var payload: Payload
    }
    package struct Ready: Decodable {
        package struct Worker: Decodable { package var position: Int64 }
        package var head: Int64
        package var workers: [String: Worker]
    }
}
