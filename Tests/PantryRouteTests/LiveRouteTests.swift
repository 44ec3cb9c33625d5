import Foundation
import HummingbirdTesting
import PantryTestRuntime
import PantryTestSupport
import Testing

/// GET /v1/me/live: Server-Sent Events of the user's own changes (issue 42), on one deployment.
/// What needs processes (a resume on a second API after a kill, a restart, a reader the kernel
/// holds back) stays in pytest (Tests/system/test_live.py).
extension APIRouteTests {
@Suite struct LiveRouteTests {
    /// One deployment for the checks (a start is most of their time); each has users of its own.
    @Test func aUsersStreamCarriesTheirOwnChangesAndEndsWhenTheirSessionDoes() async throws {
        // A stream whose client went away ends at its next write: quick heartbeats end the closed
        // ones before the server's graceful shutdown, which waits for every open request (with the
        // default 15 s this test took 30 s).
        // A keep-alive connection idle for 2 s is closed: an open stream is not idle.
        try await InProcessDeployment.run(configure: { $0.liveHeartbeat = .milliseconds(100); $0.idleTimeout = .seconds(2) }) { api, deployment in
            let port = try #require(api.port)
            try await Self.aChangeReachesTheUsersOpenStreamWithItsPositionAsId(api, port)
            try await Self.anotherUsersChangesNeverReachAStream(api, port)
            try await Self.aBadLastEventIdIsRefusedAndAStreamNeedsAToken(api)
            try await Self.loggingOutEndsTheStreamAtOnce(api, port)
            try await Self.aLastEventIdPastTheLogsHeadIsToldToReload(api, port)
            try await Self.aStreamAfterOtherRequestsOnItsConnectionOrPipelinedBehindOneCarriesChanges(api, port)
            try await Self.aHeadHoldsNoStream(api, port)
            try await Self.everyAnswerIsInTheAccessLog(deployment)
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
        // Written by the middleware, as on every answer.
        #expect(stream.header("X-Content-Type-Options") == "nosniff")
        #expect(stream.header("Date")?.hasSuffix(" GMT") == true, "\(stream.header("Date") ?? "no Date")")
        let first = try await stream.events { $0.count >= 1 }
        #expect(first.first?.event == "heartbeat", "the stream says where it starts at once")
        // Past the connections' idle timeout; the test client's own connection kept busy meanwhile.
        let idle = ContinuousClock.now
        while ContinuousClock.now - idle < .milliseconds(2_500) {
            _ = try await api.get("/health")
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(!stream.closed)
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
        let unsigned = try await api.get("/v1/me/live")
        #expect(unsigned.status == 401 && unsigned.json["code"] as? String == "invalid_token", "\(unsigned)")
        #expect(unsigned.headers[.contentType] == "application/problem+json" && unsigned.headers[.wwwAuthenticate] != nil, "\(unsigned.headers)")
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

    /// The stream's request comes after others on its connection, answered one by one or
    /// pipelined (then it is written as the requests before it are, and the answers keep their order).
    private static func aStreamAfterOtherRequestsOnItsConnectionOrPipelinedBehindOneCarriesChanges(_ api: some TestClientProtocol,
                                                                                                  _ port: Int) async throws {
        let (_, token) = try await api.registerAndLogIn("livekeptalive")
        let after = try await LiveStream.open(port: port, token: token, before: ["/v1/me/groceries", "/v1/me"])
        let pipelined = try await LiveStream.open(port: port, token: token, before: ["/v1/me/groceries"], pipelined: true)
        #expect(after.status == 200 && pipelined.status == 200)
        let added = "\(try await api.post("/v1/me/groceries", ["ingredient": "leeks"], token: token).ok(201)["position"] as? Int ?? -1)"
        for stream in [after, pipelined] {
            let got = Self.changes(try await stream.events { $0.contains { $0.id == added } })
            #expect(got.map(\.id) == [added], "\(got)")
            await stream.close()
        }
    }

    /// A HEAD is answered as a GET is, and holds no stream: eight of them would have replaced a
    /// user's open stream (at most eight each).
    private static func aHeadHoldsNoStream(_ api: some TestClientProtocol, _ port: Int) async throws {
        let (_, token) = try await api.registerAndLogIn("liveheads")
        let stream = try await LiveStream.open(port: port, token: token)
        for _ in 0..<8 {
            let head = try await api.call(.head, "/v1/me/live", token: token)
            #expect(head.status == 200 && head.headers[.contentType] == "text/event-stream" && head.body.isEmpty, "\(head)")
        }
        let added = "\(try await api.post("/v1/me/groceries", ["ingredient": "dill"], token: token).ok(201)["position"] as? Int ?? -1)"
        let got = try await stream.events { $0.contains { $0.id == added } }
        #expect(!got.contains { $0.event == "end" }, "\(got)")
        await stream.close()
    }

    /// The live route's answers pass the access log as every other (the stream's when it opens).
    private static func everyAnswerIsInTheAccessLog(_ deployment: InProcessDeployment) async throws {
        let path = deployment.directory.url.appendingPathComponent("access.log").path
        // The access log writes its lines once a second.
        let logged = try await waitUntil(timeout: .seconds(5), interval: .milliseconds(100)) {
            let lines = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return ["200", "400", "401"].allSatisfy { lines.contains(" GET /v1/me/live \($0) ") }
        }
        #expect(logged, "\((try? String(contentsOfFile: path, encoding: .utf8)) ?? "no access log")")
    }
}
}
