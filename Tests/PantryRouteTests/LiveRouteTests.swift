import Foundation
import HummingbirdTesting
import PantryTestRuntime
import Testing

/// GET /v1/me/live: Server-Sent Events of the user's own changes (issue 42), on one deployment.
/// What needs processes (a resume on a second API after a kill, a restart, a reader the kernel
/// holds back) stays in pytest (Tests/system/test_live.py).
extension APIRouteTests {
@Suite struct LiveRouteTests {
    /// One deployment for the five checks (a start is most of their time); each has users of its own.
    @Test func aUsersStreamCarriesTheirOwnChangesAndEndsWhenTheirSessionDoes() async throws {
        // A stream whose client went away ends at its next write: quick heartbeats end the closed
        // ones before the server's graceful shutdown, which waits for every open request (with the
        // default 15 s this test took 30 s).
        try await InProcessDeployment.run(configure: { $0.liveHeartbeat = .milliseconds(100) }) { api, _ in
            let port = try #require(api.port)
            try await Self.aChangeReachesTheUsersOpenStreamWithItsPositionAsId(api, port)
            try await Self.anotherUsersChangesNeverReachAStream(api, port)
            try await Self.aBadLastEventIdIsRefusedAndAStreamNeedsAToken(api)
            try await Self.loggingOutEndsTheStreamAtOnce(api, port)
            try await Self.aLastEventIdPastTheLogsHeadIsToldToReload(api, port)
        }
    }

    private static func changes(_ events: [LiveStream.Event]) -> [LiveStream.Event] {
        events.filter { $0.event == "message" }
    }

    private static func aChangeReachesTheUsersOpenStreamWithItsPositionAsId(_ api: some TestClientProtocol, _ port: Int) async throws {
        let (_, token) = try await api.registerAndLogIn("livecook")
        let stream = try await LiveStream.open(port: port, token: token)
        #expect(stream.status == 200)
        #expect(stream.header("Content-Type") == "text/event-stream")
        #expect(stream.header("X-Accel-Buffering") == "no")
        let first = try await stream.events { $0.count >= 1 }
        #expect(first.first?.event == "heartbeat", "the stream says where it starts at once")
        let added = try await api.post("/v1/me/groceries", ["ingredient": "Tomatoes", "amount": 2], token: token).ok(201)
        let got = Self.changes(try await stream.events { Self.changes($0).count >= 1 })
        try #require(!got.isEmpty)
        #expect(got[0].id == "\(added["position"] as? Int ?? -1)" && got[0].json["type"] as? String == "GroceryAdded", "\(got)")
        #expect(got[0].json["ingredient"] as? String == "Tomatoes" && got[0].json["item"] as? String == "tomato", "\(got)")
        await stream.close()
    }

    private static func anotherUsersChangesNeverReachAStream(_ api: some TestClientProtocol, _ port: Int) async throws {
        let (_, mine) = try await api.registerAndLogIn("livemine")
        let (_, theirs) = try await api.registerAndLogIn("livetheirs")
        let stream = try await LiveStream.open(port: port, token: mine)
        _ = try await stream.events { $0.count >= 1 }
        _ = try await api.post("/v1/me/groceries", ["ingredient": "secret saffron"], token: theirs).ok(201)
        let own = "\(try await api.post("/v1/me/groceries", ["ingredient": "bread"], token: mine).ok(201)["position"] as? Int ?? -1)"
        let got = Self.changes(try await stream.events { $0.contains { $0.id == own } })
        #expect(got.map { $0.json["ingredient"] as? String } == ["bread"], "\(got)")
        await stream.close()
    }

    private static func aBadLastEventIdIsRefusedAndAStreamNeedsAToken(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("livebad")
        for bad in ["-1", "abc", "1.5", ""] {
            let answer = try await api.get("/v1/me/live", token: token, headers: ["Last-Event-ID": bad])
            #expect(answer.status == 400 && answer.json["code"] as? String == "invalid_last_event_id", "\(bad): \(answer)")
        }
        #expect(try await api.get("/v1/me/live").status == 401)
    }

    private static func loggingOutEndsTheStreamAtOnce(_ api: some TestClientProtocol, _ port: Int) async throws {
        let (_, token) = try await api.registerAndLogIn("liveleaves")
        let stream = try await LiveStream.open(port: port, token: token)
        _ = try await stream.events { $0.count >= 1 }
        #expect([200, 204].contains(try await api.call(.delete, "/v1/sessions/current", token: token).status))
        let ended = try await stream.events(timeout: .seconds(5)) { $0.contains { $0.event == "end" } }
        #expect(ended.last?.event == "end" && ended.last?.json["reason"] as? String == "revoked", "\(ended)")
        // The server closed the stream: its end comes without the client closing anything.
        _ = try await stream.events(timeout: .seconds(5)) { _ in false }
        #expect(stream.closed, "the server closed the stream")
        await stream.close()
    }

    /// An id this deployment never sent (another one's, or a log restored from an older backup)
    /// would otherwise hold back every change up to it.
    private static func aLastEventIdPastTheLogsHeadIsToldToReload(_ api: some TestClientProtocol, _ port: Int) async throws {
        let (_, token) = try await api.registerAndLogIn("liveahead")
        let stream = try await LiveStream.open(port: port, token: token, lastEventId: "1000000000000")
        let first = try await stream.events { $0.count >= 1 }
        #expect(first.first?.event == "reset" && (Int(first.first?.id ?? "") ?? .max) < 1_000_000_000_000, "\(first)")
        let added = try await api.post("/v1/me/groceries", ["ingredient": "rice"], token: token).ok(201)
        let got = Self.changes(try await stream.events { Self.changes($0).count >= 1 })
        #expect(got.first?.id == "\(added["position"] as? Int ?? -1)", "\(got)")
        await stream.close()
    }
}
}
