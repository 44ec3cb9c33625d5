import Foundation
import Hummingbird
import PantryJSON
import PantryWire

/// The API's questions to the projection workers, through the `QueryPort` (`schemas/zeromq.md`,
/// queries). A worker answers `{"position": P, "result": ...}` where P is the log position it has
/// applied; that document is the HTTP body as it is, so reads cost no re-encoding here.
struct WorkerQueries: Sendable {
    let port: any QueryPort

    /// The worker's answer as an HTTP response, or the problem its error maps to.
    func answer(_ query: QueryRequest) async throws -> Response {
        let reply = try await ask(query)
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply)))
    }

    /// The answer document of the worker `query` is for, once checked not to be an error.
    func ask(_ query: QueryRequest, timeout: Duration? = nil) async throws -> Data {
        let worker = query.query.worker
        let reply: Data
        do {
            reply = try await port.ask(query, timeout: timeout)
        } catch {
            throw Problem(.workerUnavailable,
                          detail: "the \(worker) worker did not answer in time", headers: [.retryAfter: "1"])
        }
        let head = try ReplyHead(reply)
        APIMetrics.projectionPosition(worker: worker.rawValue, head.position)
        if let error = head.error { throw Self.problem(error) }
        return reply
    }

    /// A failure is `{"position": P, "error": {...}}`; only those keys are read, not the result,
    /// which a `JSONDecoder` would first have made into a tree of its own.
    private struct ReplyHead {
        struct Failure {
            /// Nil for a code this API does not know (a newer worker's).
            var code: QueryError.Code?
            var message: String
        }
        var position: Int64
        var error: Failure?

        init(_ reply: Data) throws {
            (position, error) = try reply.withUnsafeBytes { bytes in
                try JSONObjectReader.read(bytes) { json in
                    let error = try json.optionalObject("error").map { error in
                        try JSONObjectReader.read(error) {
                            try Failure(code: QueryError.Code(rawValue: $0.string("code")), message: $0.string("message"))
                        }
                    }
                    return (try json.int64("position"), error)
                }
            }
        }
    }

    private static func problem(_ error: ReplyHead.Failure) -> Problem {
        switch error.code {
        case .notFound:
            Problem(.notFound, detail: error.message)
        case .positionNotWritten:
            Problem(.positionNotWritten, detail: error.message)
        case .notCaughtUp:
            Problem(.notCaughtUp, detail: error.message, headers: [.retryAfter: "1"])
        // The API never asks for a swap: an answer about one is as unexpected as a bad query.
        case .badQuery, .swapFailed, nil:
            Problem(.invalidQuery, detail: error.message)
        }
    }
}
