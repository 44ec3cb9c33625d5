import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The API's routes on in-process deployments, side by side (the one test that compares the
/// process's metrics runs its deployment alone).
enum APIRouteTests {}

/// An HTTP answer of the API as a client reads it: status, headers and the JSON body.
struct Answer: CustomStringConvertible {
    var status: Int
    var headers: HTTPFields
    var body: [UInt8]

    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    var description: String { "\(status) \(String(decoding: body.prefix(300), as: UTF8.self))" }
}

extension TestClientProtocol {
    /// `json` as the body (a JSON object or array), or `raw` bytes as sent; `token` as a bearer.
    func call(_ method: HTTPRequest.Method, _ path: String, json: Any? = nil, raw: [UInt8]? = nil, token: String? = nil,
              headers extra: [String: String] = [:]) async throws -> Answer {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        var body: ByteBuffer?
        if let raw {
            body = ByteBuffer(bytes: raw)
        } else if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        }
        if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        let response = try await execute(uri: path, method: method, headers: headers, body: body)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer: response.body))
    }

    func get(_ path: String, token: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
        try await call(.get, path, token: token, headers: headers)
    }

    func post(_ path: String, _ json: Any? = nil, token: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
        try await call(.post, path, json: json, token: token, headers: headers)
    }

    /// Registers `username` and logs in: the user's id and a token.
    func registerAndLogIn(_ username: String, password: String = "correct horse battery") async throws -> (userId: String, token: String) {
        let registered = try await post("/v1/accounts", ["username": username, "email": "\(username)@example.org", "password": password])
        try #require(registered.status == 201, "\(registered)")
        let session = try await post("/v1/sessions", ["username": username, "password": password])
        try #require(session.status == 201, "\(session)")
        return (try #require(registered.json["userId"] as? String), try #require(session.json["token"] as? String))
    }

    /// A point needs the recipe cooking: "Start cooking", no cart line.
    func startCooking(_ recipeId: String, token: String) async throws {
        let started = try await post("/v1/me/cooking/\(recipeId)", ["minutes": 30], token: token)
        try #require(started.status == 201, "\(started)")
    }
}

/// An RFC 9457 problem with `status` (and `code`, when given), as every refusal of the API is.
@discardableResult
func expectProblem(_ answer: Answer, _ status: Int, _ code: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any] {
    #expect(answer.status == status, "\(answer)", sourceLocation: sourceLocation)
    #expect(answer.header("Content-Type") == "application/problem+json", "\(answer.headers)", sourceLocation: sourceLocation)
    let document = answer.json
    let documentCode = document["code"] as? String ?? ""
    #expect(document["status"] as? Int == answer.status, sourceLocation: sourceLocation)
    #expect(document["type"] as? String == "https://pantry.example/problems/\(documentCode)", sourceLocation: sourceLocation)
    #expect(!(document["title"] as? String ?? "").isEmpty && !(document["detail"] as? String ?? "").isEmpty, sourceLocation: sourceLocation)
    if let code { #expect(documentCode == code, "\(answer)", sourceLocation: sourceLocation) }
    return document
}
