import Foundation
import HTTPTypes
import PantryAPI
import PantryTestRuntime
import Testing

/// What the API serves besides the API: the web app's files with a strict content policy, the
/// contract and its rendered documentation, and CORS only for the origins a deployment names.
extension APIRouteTests {
@Suite struct WebServingRouteTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theAppTheContractAndTheDocsAreServed() async throws {
        try await InProcessDeployment.run { api, _ in
            let page = try await api.get("/")
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(String(decoding: page.body, as: UTF8.self).contains(#"<script type="module" src="/app/app.js">"#))
            let policy = page.header("Content-Security-Policy") ?? ""
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            // API answers carry the same two headers, and no page policy.
            let board = try await api.get("/v1/leaderboard")
            #expect(board.status == 200 && board.header("X-Content-Type-Options") == "nosniff")
            #expect(board.header("Referrer-Policy") == "same-origin" && board.header("Content-Security-Policy") == nil)
            // And so do problem documents (the web app's middleware, which set them, saw only what it returned).
            for refused in [try await api.get("/v1/me/cart"), try await api.get("/nothing.html")] {
                #expect([401, 404].contains(refused.status) && refused.header("X-Content-Type-Options") == "nosniff")
                #expect(refused.header("Referrer-Policy") == "same-origin")
            }
            for path in ["/app/app.js", "/app/screens/recipe.js", "/sw.js"] {
                let script = try await api.get(path)
                #expect(script.status == 200 && script.header("Content-Type")?.contains("javascript") == true, "\(path)")
            }
            let contract = try await api.get("/openapi.yaml")
            let committed = try Data(contentsOf: Self.root.appendingPathComponent("schemas/openapi.yaml"))
            #expect(contract.status == 200 && Data(contract.body) == committed)
            #expect(contract.header("Content-Type") == "application/yaml")
            let docs = try await api.get("/docs")
            #expect(docs.status == 200 && String(decoding: docs.body, as: UTF8.self).contains(#"<redoc spec-url="/openapi.yaml">"#))
            let renderer = try await api.get("/docs/redoc.standalone.js")
            #expect(renderer.status == 200 && renderer.body.count > 100_000, "ops/setup installs ReDoc")
            // Nothing outside the app's folder, and no listing.
            for path in ["/app/../../Package.swift", "/%2e%2e/%2e%2e/Package.swift", "/app/", "/nothing.html"] {
                let answer = try await api.get(path)
                #expect([400, 404].contains(answer.status) && !String(decoding: answer.body, as: UTF8.self).contains("swift-tools-version"),
                        "\(path)")
            }
        }
    }

    /// The service worker as served lists every file of the app (each served), under a cache
    /// name made from them (`ServiceWorker`).
    @Test func theServiceWorkerKeepsEveryFileOfTheAppAndOnlyThose() async throws {
        try await InProcessDeployment.run { api, _ in
            let worker = try await api.get("/sw.js")
            #expect(worker.status == 200 && worker.header("Content-Type")?.contains("javascript") == true)
            let script = String(decoding: worker.body, as: UTF8.self)
            #expect(script.firstMatch(of: /const cacheName = "pantry-[0-9a-f]{16}";/) != nil)
            let list = try #require(script.firstMatch(of: /const shell = \[([^\]]*)\];/)?.1)
            let shell = list.split(separator: ", ").map { String($0.dropFirst().dropLast()) }
            let app = Self.root.appendingPathComponent("Sources/PantryWeb/Web/app")
            let files = try FileManager.default.subpathsOfDirectory(atPath: app.path).filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: app.appendingPathComponent(path).path, isDirectory: &isDirectory) && !isDirectory.boolValue
            }
            #expect(Set(shell) == Set(["/"] + files.map { "/app/\($0)" }))
            for path in shell {
                #expect(try await api.get(path).status == 200, "\(path)")
            }
        }
    }

    @Test func corsAnswersOnlyTheConfiguredOrigins() async throws {
        // As an operator writes them (`PANTRY_CORS_ORIGINS`).
        let origins = APIServer.Configuration.origins("https://app.example, http://localhost:3000")
        try await InProcessDeployment.run(configure: { $0.corsOrigins = origins }) { api, _ in
            let headers = ["Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                           "Access-Control-Request-Headers": "authorization, content-type"]
            let preflight = try await api.call(.options, "/v1/me/cart", headers: headers)
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example")
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
            let read = try await api.get("/v1/leaderboard", headers: ["Origin": "http://localhost:3000"])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == "http://localhost:3000")
            #expect(read.header("Vary") == "Origin")
            let stranger = try await api.get("/v1/leaderboard", headers: ["Origin": "https://evil.example"])
            #expect(stranger.status == 200 && stranger.header("Access-Control-Allow-Origin") == nil)
            var evil = headers
            evil["Origin"] = "https://evil.example"
            let refused = try await api.call(.options, "/v1/me/cart", headers: evil)
            #expect(refused.status == 405 && refused.header("Access-Control-Allow-Origin") == nil)
        }
    }

    @Test func corsIsOffByDefault() async throws {
        try await InProcessDeployment.run { api, _ in
            let answer = try await api.get("/v1/leaderboard", headers: ["Origin": "https://app.example"])
            #expect(answer.status == 200 && answer.header("Access-Control-Allow-Origin") == nil)
        }
    }
}
}
