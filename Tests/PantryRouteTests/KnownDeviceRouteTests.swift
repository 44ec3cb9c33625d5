import Foundation
import PantryBounded
import PantryTestRuntime
import Testing

/// Issue 45 point 3: a returning client's device token (OWASP's device cookie) passes when the
/// log-in budget every unknown client shares is spent, for its own account only, and a device
/// that fails its password too often is locked out.
extension APIRouteTests {
@Suite struct KnownDeviceRouteTests {
    static let password = "Sesame-0pen sesame"

    @Test func aKnownDeviceLogsInWhenEveryonesBudgetIsSpentForItsOwnAccountOnlyAndIsLockedOutAfterFailures() async throws {
        // Everyone's budget: the three registrations and two log-ins below, then a few guesses.
        try await InProcessDeployment.run(configure: {
            $0.loginLimitOverall = RateLimit(perSecond: 0.001, burst: 8)
            $0.loginLimitPerClient = RateLimit(perSecond: 1000, burst: 1000)
        }) { api, _ in
            _ = try await api.registerAndLogIn("anna", password: Self.password)
            let anna = try await api.post("/v1/sessions", ["username": "anna", "password": Self.password])
            _ = try await api.registerAndLogIn("bert", password: Self.password)
            // A registration answers a device token too, with its cookie.
            let cleo = try await api.post("/v1/accounts", ["username": "cleo", "email": "cleo@example.org", "password": Self.password])
            let cleosDevice = try #require(cleo.json["deviceToken"] as? String)
            #expect(cleo.header("Set-Cookie")?.hasPrefix("pantry_device=\(cleosDevice);") == true, "\(cleo.headers)")
            let annasDevice = try #require(anna.json["deviceToken"] as? String)
            let cookie = try #require(anna.header("Set-Cookie"))
            #expect(cookie.hasPrefix("pantry_device=\(annasDevice);") && cookie.contains("Path=/v1/sessions")
                    && cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")

            // Unknown clients spend everyone's budget.
            var spent = false
            for n in 0..<10 where !spent {
                let guess = try await api.post("/v1/sessions", ["username": "ghost\(n)", "password": "wrong password"])
                spent = guess.status == 429
            }
            #expect(spent, "everyone's budget is spent")
            expectProblem(try await api.post("/v1/sessions", ["username": "anna", "password": Self.password]), 429, "rate_limited")

            // Anna's device passes, by header (an app) and by cookie (a browser), and is renewed.
            let byHeader = try await api.post("/v1/sessions", ["username": "anna", "password": Self.password],
                                              headers: ["X-Pantry-Device": annasDevice])
            #expect(byHeader.status == 201, "\(byHeader)")
            let renewed = try #require(byHeader.json["deviceToken"] as? String)
            #expect(renewed.split(separator: ".")[2] == annasDevice.split(separator: ".")[2], "the same device")
            let byCookie = try await api.post("/v1/sessions", ["username": "anna", "password": Self.password],
                                              headers: ["Cookie": "theme=dark; pantry_device=\(renewed)"])
            #expect(byCookie.status == 201, "\(byCookie)")
            let cleoReturns = try await api.post("/v1/sessions", ["username": "cleo", "password": Self.password],
                                                 headers: ["X-Pantry-Device": cleosDevice])
            #expect(cleoReturns.status == 201, "the device a registration named is known: \(cleoReturns)")

            // Anna's device is no help for guesses against Bert, nor a forged or altered one.
            expectProblem(try await api.post("/v1/sessions", ["username": "bert", "password": Self.password],
                                             headers: ["X-Pantry-Device": annasDevice]), 429, "rate_limited")
            expectProblem(try await api.post("/v1/sessions", ["username": "anna", "password": Self.password],
                                             headers: ["X-Pantry-Device": String(annasDevice.dropLast(2)) + "AA"]), 429, "rate_limited")

            // Five wrong passwords from Anna's device, and the device is locked out, the right password too.
            for _ in 0..<5 {
                expectProblem(try await api.post("/v1/sessions", ["username": "anna", "password": "not the password"],
                                                 headers: ["X-Pantry-Device": annasDevice]), 401, "invalid_credentials")
            }
            let locked = try await api.post("/v1/sessions", ["username": "anna", "password": Self.password],
                                            headers: ["X-Pantry-Device": annasDevice])
            expectProblem(locked, 429, "too_many_attempts")
            #expect(Int(locked.header("Retry-After") ?? "") ?? 0 > 60, "\(locked.headers)")
        }
    }
}
}
