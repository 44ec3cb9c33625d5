import Hummingbird
import Synchronization

/// Which methods each route pattern serves, read from the router once every route is registered:
/// a request with another method on a known path is 405 with the path's own `Allow` (RFC 9110),
/// not a 404 that says the path does not exist.
final class RouteMethods: Sendable {
    private let patterns = Mutex<[(components: [Substring], methods: Set<String>)]>([])

    func learn(_ routes: [Router<APIRequestContext>.RouteDescription]) {
        var byPath: [String: Set<String>] = [:]
        for route in routes {
            byPath[route.path.description, default: []].insert(route.method.rawValue)
            if route.method == .get { byPath[route.path.description, default: []].insert("HEAD") }
        }
        patterns.withLock { patterns in
            patterns = byPath.map { (components: $0.key.split(separator: "/"), methods: $0.value) }
        }
    }

    /// The methods served on `path` (a capture `{name}` matches any one segment), sorted; nil when
    /// no route has this path.
    func allowed(on path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let methods = patterns.withLock { patterns in
            patterns.filter { pattern in
                pattern.components.count == segments.count && zip(pattern.components, segments).allSatisfy { expected, actual in
                    expected.hasPrefix("{") ? !actual.isEmpty : expected == actual
                }
            }.reduce(into: Set<String>()) { $0.formUnion($1.methods) }
        }
        return methods.isEmpty ? nil : methods.sorted().joined(separator: ", ")
    }
}

/// HEAD answered as GET without the body (RFC 9110: a server that serves GET serves HEAD), on
/// every route: the request is routed as GET, before the router looks for a HEAD route.
struct HeadAsGet<Inner: HTTPResponder>: HTTPResponder {
    let inner: Inner

    func respond(to request: Request, context: Inner.Context) async throws -> Response {
        guard request.method == .head else { return try await inner.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        let answer = try await inner.respond(to: Request(head: head, body: request.body), context: context)
        return Response(status: answer.status, headers: answer.headers, body: ResponseBody())
    }
}
