import HTTPTypes
import Hummingbird
import Logging
import NIOCore
@testable import PantryHTTP
import Testing

/// `LiveRequestTask`: the live route is answered in a task of its own, whose slabs go when the
/// response is made; every other request in the connection's task, as before.
@Suite struct LiveRequestTaskTests {
    @Test("GET or HEAD /v1/me/live is answered in a task of its own, any other request in the caller's, and the answer or error comes back")
    func onlyTheLiveRouteGetsATaskOfItsOwn() async throws {
        let responder = LiveRequestTask(inner: TaskRecorder())
        let caller = Self.currentTask()
        for (method, path, ownTask) in [(HTTPRequest.Method.get, "/v1/me/live", true), (.get, "/v1/me/live?x=1", true), (.head, "/v1/me/live", true),
                                        (.get, "/v1/me/groceries", false), (.post, "/v1/me/live", false)] {
            let response = try await responder.respond(to: Self.request(method, path), context: BareContext(source: .init()))
            #expect(response.status == .ok)
            let answeredIn = try #require(response.headers[TaskRecorder.taskHeader].flatMap(Int.init))
            #expect((answeredIn != caller) == ownTask, "\(method) \(path)")
        }
        await #expect(throws: Problem.self) {
            try await responder.respond(to: Self.request(.get, "/v1/me/live", failing: true), context: BareContext(source: .init()))
        }
    }

    static func currentTask() -> Int { withUnsafeCurrentTask { $0?.hashValue ?? 0 } }

    static func request(_ method: HTTPRequest.Method, _ path: String, failing: Bool = false) -> Request {
        var head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path)
        if failing { head.headerFields[TaskRecorder.failHeader] = "yes" }
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }
}

/// Says which task answered, in a header; fails when asked to.
private struct TaskRecorder: HTTPResponder {
    static let taskHeader = HTTPField.Name("Answered-In")!
    static let failHeader = HTTPField.Name("Fail")!

    func respond(to request: Request, context: BareContext) async throws -> Response {
        if request.headers[Self.failHeader] != nil { throw Problem(.notCaughtUp, detail: "asked to fail") }
        return Response(status: .ok, headers: [Self.taskHeader: String(LiveRequestTaskTests.currentTask())])
    }
}

private struct BareSource: RequestContextSource {
    var logger = Logger(label: "test")
}

private struct BareContext: RequestContext {
    typealias Source = BareSource
    var coreContext: CoreRequestContextStorage
    init(source: BareSource) { coreContext = .init(source: source) }
}
