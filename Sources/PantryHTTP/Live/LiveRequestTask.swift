import Hummingbird

/// Makes the answer to `GET /v1/me/live` in a task of its own, so that an open stream holds only
/// the few async frames that write its body.
///
/// A task keeps every slab its allocator took until the task ends, so a connection's task holds
/// the slabs of the deepest call any of its requests made: the router, the access log, the
/// authenticator and the route would stay with each stream for as long as it is open (9 of the
/// 17 KiB of task slabs an idle stream held, by heaptrack). The other task's slabs go as soon as
/// it has made the response; its body is then written on the connection's task as any other.
/// Every middleware still sees the request, and the access log records it as before. An
/// unstructured task, cancelled with the connection's: a task group's frames took a slab more.
struct LiveRequestTask<Inner: HTTPResponder>: HTTPResponder where Inner.Context: Sendable {
    let inner: Inner

    func respond(to request: Request, context: Inner.Context) async throws -> Response {
        // Outermost, so that nothing else's frame stays below the stream's either; HEAD is
        // answered as GET by the responder inside.
        guard request.method == .get || request.method == .head, request.uri.path == LiveRoutes.path else {
            return try await inner.respond(to: request, context: context)
        }
        let answer = Task { try await inner.respond(to: request, context: context) }
        return try await withTaskCancellationHandler { try await answer.value } onCancel: { answer.cancel() }
    }
}
