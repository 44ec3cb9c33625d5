import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIRuntime

/// A change on the signed-in user's screens, as the live stream sends it.
public typealias LiveChange = Components.Schemas.LiveChange

/// What the live stream delivers.
public enum LiveEvent: Sendable {
    /// One change to the grocery list, the cart, what the user cooks, favourites or points, in log order.
    case change(LiveChange)
    /// The stream could not resume where it left off (too far back): reload the screens; changes
    /// after `position` follow.
    case reset(position: Int64)
}

/// `GET /v1/me/live` as an `AsyncSequence` that outlives connections: when one drops (the API
/// restarted, the network changed) it reconnects with `Last-Event-ID`, so the changes continue
/// after the last one delivered, none missed and none twice; an expired token is refreshed and
/// the stream goes on. It ends when the iterating task is cancelled, and throws
/// `PantryError.signedOut` when the session ends (logged out, a new password, the account deleted).
public struct LiveUpdates: AsyncSequence, Sendable {
    public typealias Element = LiveEvent

    let baseURL: URL
    let keeper: SessionKeeper
    let policy: RetryPolicy
    /// Resume after this position (a change's or a reset's), or start with what comes next.
    let after: Int64?

    public func makeAsyncIterator() -> AsyncThrowingStream<LiveEvent, any Error>.AsyncIterator {
        let (events, sink) = AsyncThrowingStream<LiveEvent, any Error>.makeStream()
        let task = Task { await run(into: sink) }
        sink.onTermination = { _ in task.cancel() }
        return events.makeAsyncIterator()
    }

    private enum Next { case reconnect, finish(PantryError?) }

    private func run(into sink: AsyncThrowingStream<LiveEvent, any Error>.Continuation) async {
        var lastEventId = after.map(String.init)
        var failures = 0
        while !Task.isCancelled {
            let next: Next
            do {
                next = try await connectOnce(lastEventId: &lastEventId, sink: sink, failures: &failures)
            } catch let error as PantryError {
                next = .finish(error)
            } catch {
                next = .reconnect
            }
            switch next {
            case .finish(let error):
                sink.finish(throwing: error)
                return
            case .reconnect:
                failures += 1
                try? await Task.sleep(for: policy.backoff(after: Swift.min(failures, 8)))
            }
        }
        sink.finish()
    }

    /// One connection: opened, read until it ends; what to do then.
    private func connectOnce(lastEventId: inout String?, sink: AsyncThrowingStream<LiveEvent, any Error>.Continuation,
                             failures: inout Int) async throws -> Next {
        guard let token = try await keeper.token() else { return .finish(.signedOut) }
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/me/live"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let lastEventId { request.setValue(lastEventId, forHTTPHeaderField: "Last-Event-ID") }
        let stream = ByteStream()
        return try await withTaskCancellationHandler {
            switch await stream.start(request) {
            case .failed:
                return .reconnect
            case .response(let response) where response.statusCode == 401:
                return try await keeper.recover(from: token) == nil ? .finish(.signedOut) : .reconnect
            case .response(let response) where response.statusCode == 503 || response.statusCode == 429:
                return .reconnect
            case .response(let response) where response.statusCode != 200:
                stream.cancel()
                return .finish(.unexpectedAnswer(status: response.statusCode))
            case .response:
                break
            }
            defer { stream.cancel() }
            for try await event in stream.chunks.asDecodedServerSentEvents() {
                failures = 0
                if let id = event.id { lastEventId = id }
                switch event.event {
                case nil, "message":
                    guard let data = event.data?.data(using: .utf8) else { continue }
                    sink.yield(.change(try JSONDecoder().decode(LiveChange.self, from: data)))
                case "reset":
                    if let id = event.id, let position = Int64(id) { sink.yield(.reset(position: position)) }
                case "end":
                    switch Self.reason(event.data) {
                    case "revoked": return .finish(.signedOut)
                    case "replaced": return .finish(nil)
                    case "expired": _ = try await keeper.recover(from: token)
                    default: break  // restart: the API process is stopping; another answers.
                    }
                    return .reconnect
                default:
                    continue  // heartbeat: its id moved the resume point on.
                }
            }
            return .reconnect
        } onCancel: {
            stream.cancel()
        }
    }

    private static func reason(_ data: String?) -> String? {
        struct End: Decodable { let reason: String }
        return data.flatMap { try? JSONDecoder().decode(End.self, from: Data($0.utf8)).reason }
    }
}
