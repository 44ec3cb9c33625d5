import Hummingbird
import HTTPTypes
import NIOCore
import PantryDomain
import PantryTokens

/// `GET /v1/me/live`: the signed-in user's changes as Server-Sent Events, from the API's feed
/// (`LiveStreams`). Each change's `id` is its log position; a client that reconnects with
/// `Last-Event-ID` gets exactly the changes after it, whichever API process it reaches.
struct LiveRoutes {
    let live: LiveStreams
    let feed: any FeedPort
    let households: HouseholdDirectory
    /// Whether a session that passed the authenticator has been ended since (a logout or a new
    /// password the feed applied a moment ago).
    let isEnded: @Sendable (SessionClaims) -> Bool

    /// Answered by the connection's `LiveStreamHandler`, with no task of its own once open.
    static let path = "/v1/me/live"
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    private static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!

    func register(on routes: RouterGroup<APIRequestContext>) {
        routes.get(RouterPath(Self.path)) { request, context in
            try await stream(request, context: context)
        }
    }

    private func stream(_ request: Request, context: APIRequestContext) async throws -> Response {
        let session = try context.requireSession()
        var lastEventId = try Self.lastEventId(request)
        // A position past the log's head was never sent by this deployment (another one's, or a
        // log restored from an older backup): the client is told to reload rather than wait for it.
        var pastTheHead = false
        if let asked = lastEventId, asked > feed.progress.position, let head = await feed.logHead(), asked > head {
            lastEventId = nil
            pastTheHead = true
        }
        let opening: LiveStreams.Opening
        do {
            opening = try live.open(userId: session.userId, tokenId: session.tokenId, expiresAt: session.expiresAt,
                                    lastEventId: lastEventId, resetting: pastTheHead, isRevoked: { isEnded(session) },
                                    closeConnection: context.closeConnection)
        } catch {
            switch error {
            case .notStarted: throw Problem(.starting, detail: "the API is still loading the accounts", headers: [.retryAfter: "1"])
            case .stopping: throw Problem(.starting, detail: "this API process is restarting", headers: [.retryAfter: "1"])
            case .full: throw Problem(.tooManyStreams, detail: "this API process holds as many live streams as it may",
                                      headers: [.retryAfter: "5"])
            case .revoked: throw Problem.invalidToken("the token is invalid or expired")
            }
        }
        let stream: LiveSubscription
        switch opening {
        case .streaming(let opened):
            stream = opened
        case .resuming(let resumed, let after, let through):
            do {
                live.finishResume(resumed, backlog: try await feed.liveChanges(
                    of: session.userId, household: households.household(of: session.userId)?.id, after: after, through: through))
            } catch {
                live.close(resumed)
                throw Problem(.notCaughtUp, detail: "the log cannot be read to resume the stream now", headers: [.retryAfter: "1"])
            }
            stream = resumed
        }
        // A stream's writes wait for a slow client after 32 KiB here (64 KiB in the kernel's
        // accounting) and NIO's 64 KiB, so what it leaves queued shows in its mailbox at once.
        context.limitSendBuffer(to: 32 << 10)
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store", Self.accelBuffering: "no"]
        let live = self.live
        if let handoff = context.liveHandoff {
            // The connection's handler writes it: this body (no length, so the head says chunked) is never run.
            handoff.hand(stream, of: live)
            return Response(status: .ok, headers: headers, body: ResponseBody { _ in })
        }
        // A live request pipelined behind another: its stream is written from this task.
        // A body dropped unwritten (HEAD, or a connection gone before the head left) closes the
        // stream too: else it would hold its place until its unread heartbeats closed the
        // connection, which a HEAD's keep-alive connection is still serving other requests on.
        let lease = StreamLease(live: live, stream: stream)
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody { writer in
                defer { lease.close() }
                try await writer.write(ByteBuffer(string: Self.retry))
                var ended = false
                while !ended {
                    let messages = await stream.next()
                    guard !messages.isEmpty else { break }
                    var buffer = ByteBuffer()
                    for message in messages { ended = Self.write(message, to: &buffer) || ended }
                    try await writer.write(buffer)
                }
                try await writer.finish(nil)
            })
    }

    /// A stream's first words: a client that lost the connection retries after 1 s (EventSource's own default is 3).
    static let retry = "retry: 1000\n\n"

    /// Closes its stream when the body ends, or when the body is dropped unwritten (closing twice does nothing).
    private final class StreamLease: Sendable {
        let live: LiveStreams
        let stream: LiveSubscription

        init(live: LiveStreams, stream: LiveSubscription) {
            self.live = live
            self.stream = stream
        }

        func close() { live.close(stream) }

        deinit { live.close(stream) }
    }

    /// Writes one SSE event; true for the stream's last.
    static func write(_ message: LiveMessage, to buffer: inout ByteBuffer) -> Bool {
        switch message {
        case .change(let change):
            buffer.writeString("id: \(change.position)\ndata: ")
            buffer.writeBytes(change.json)
            buffer.writeString("\n\n")
        case .heartbeat(let position):
            buffer.writeString("id: \(position)\nevent: heartbeat\ndata: {\"position\":\(position)}\n\n")
        case .reset(let position):
            buffer.writeString("id: \(position)\nevent: reset\ndata: {\"position\":\(position)}\n\n")
        case .end(let reason):
            buffer.writeString("event: end\ndata: {\"reason\":\"\(reason)\"}\n\n")
            return true
        }
        return false
    }

    /// The position a resume names: a whole number, as this API's ids are.
    static func lastEventId(_ request: Request) throws -> Int64? {
        let values = request.headers[values: lastEventID]
        guard let value = values.first else { return nil }
        guard values.count == 1, let position = Int64(value), position >= 0 else {
            throw Problem(.invalidLastEventId, detail: "Last-Event-ID must be a log position (a whole number) this API sent")
        }
        return position
    }
}
