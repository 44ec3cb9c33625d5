import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes

/// Serves `GET /v1/me/live` from the connection's pipeline, so that an open stream keeps no Swift
/// task: Hummingbird's request loop would keep the connection's task, and with it the allocator
/// slabs of every frame the request went through (7-8 of an idle stream's 18.7 KiB, heaptrack),
/// for as long as the stream is open. Here the request's head never reaches that loop, whose task
/// stays parked at its first read as on a connection that has sent nothing.
///
/// The request is answered by the server's responder, router and middleware and all (the access
/// log's line, authentication, CORS, the security headers, rate limits), in a short task of its
/// own. When the live route opened a stream, it leaves it in the request's `LiveStreamHandoff`
/// and this handler writes the response's head and then the stream's messages on the event loop,
/// each time the stream has some (`LiveSubscription.take(orWhenReady:)`), and only while the
/// channel is writable: a client that stops reading lets them pile up in its mailbox until the
/// stream is closed as before. Any other answer (401, 429, 503...) is written as Hummingbird
/// would, and the connection is kept alive unless the request said `Connection: close`.
///
/// A live request pipelined behind another that is still being answered goes to Hummingbird with
/// it (the route then writes its stream from a task, as before): answers leave in order. A request
/// pipelined behind a live one waits here until the live one has ended.
final class LiveStreamHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What every connection's handler shares: the server's responder and logger.
    final class Serving: Sendable {
        let respond: @Sendable (Request, APIRequestContext) async throws -> Response
        let logger: Logger

        init(logger: Logger, respond: @escaping @Sendable (Request, APIRequestContext) async throws -> Response) {
            self.respond = respond
            self.logger = logger
        }
    }

    private enum Phase {
        /// Requests go on to Hummingbird.
        case passing
        /// A live request is being answered by the responder.
        case answering
        case streaming(LiveStreamHandoff.Opened)
    }

    private let serving: Serving
    private var phase = Phase.passing
    /// Requests passed on to Hummingbird whose response has not ended yet.
    private var unanswered = 0
    /// The rest of the live request's parts (its body, its end) are dropped.
    private var droppingRequest = false
    /// The live request asked for the connection to be closed after its answer.
    private var closeAfterAnswer = false
    /// A reader waits on the stream's mailbox.
    private var waiting = false
    /// The server is shutting down: the connection closes after the answer.
    private var quiescing = false
    /// Parts of requests pipelined behind a live one, and whether a read was held back meanwhile.
    private var held: [HTTPRequestPart] = []
    private var readHeld = false

    init(serving: Serving) {
        self.serving = serving
    }

    private var isPassing: Bool {
        if case .passing = phase { true } else { false }
    }

    static func isLive(_ head: HTTPRequest) -> Bool {
        guard head.method == .get || head.method == .head, let path = head.path else { return false }
        return path.prefix { $0 != "?" } == LiveRoutes.path
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(unwrapInboundIn(data), context: context)
    }

    private func receive(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        if droppingRequest {
            if case .end = part { droppingRequest = false }
            return
        }
        guard case .passing = phase else {
            held.append(part)
            return
        }
        if case .head(let head) = part {
            if unanswered == 0, Self.isLive(head) {
                answer(head, context: context)
                return
            }
            unanswered += 1
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    func read(context: ChannelHandlerContext) {
        // A pipelined request waits for the live one: reading more would only pile up more.
        guard held.isEmpty else {
            readHeld = true
            return
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // The idle timeout of Hummingbird's connection handler (after this one) never saw the live
        // request: an open stream is not an idle connection. Shutting down, it closes as any other.
        if mode == .all, !quiescing, !isPassing {
            promise?.fail(ChannelError.operationUnsupported)
            return
        }
        context.close(mode: mode, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { quiescing = true }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { awaitMessages(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        endStream()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endStream()
    }

    private func endStream() {
        if case .streaming(let opened) = phase { opened.close() }
        phase = .passing
        waiting = false
    }

    /// Runs the responder for the live request in a task of its own, then writes its answer here.
    private func answer(_ head: HTTPRequest, context: ChannelHandlerContext) {
        phase = .answering
        droppingRequest = true
        closeAfterAnswer = head.headerFields[.connection] == "close"
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let closer = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // Closes from this handler's place, so that the close is not taken for the idle timeout's.
        let handoff = LiveStreamHandoff(closeConnection: { eventLoop.execute { closer.value.close(promise: nil) } })
        var logger = serving.logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        var requestContext = APIRequestContext(source: .init(channel: context.channel, logger: logger))
        requestContext.liveHandoff = handoff
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let serving = self.serving
        Task {
            var response: Response
            do {
                response = try await serving.respond(request, requestContext)
            } catch {
                response = Response(status: .internalServerError)
            }
            response.headers[.date] = httpDate()
            let opened = handoff.take()
            var body: ByteBuffer?
            if opened == nil {
                let collected = CollectedBody()
                try? await response.body.write(CollectingWriter(into: collected))
                body = collected.buffer
            }
            let answer = (response.head, body)
            eventLoop.execute {
                let (handler, context) = loopBound.value
                handler.answered(answer.0, body: answer.1, opened: opened, isHead: head.method == .head, context: context)
            }
        }
    }

    private func answered(_ head: HTTPResponse, body: ByteBuffer?, opened: LiveStreamHandoff.Opened?, isHead: Bool,
                          context: ChannelHandlerContext) {
        guard case .answering = phase, context.channel.isActive else {
            opened?.close()
            return
        }
        if let opened, head.status == .ok, !isHead {
            phase = .streaming(opened)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.body(ByteBuffer(string: LiveRoutes.retry))), promise: nil)
            awaitMessages(context: context)
            return
        }
        // A HEAD holds no stream.
        opened?.close()
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, body.readableBytes > 0, !isHead { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        finishAnswer(context: context)
    }

    /// Writes what the stream has queued, or waits for it; only while the channel takes writes.
    private func awaitMessages(context: ChannelHandlerContext) {
        guard case .streaming(let opened) = phase, !waiting, context.channel.isWritable else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let stream = opened.stream
        waiting = true
        let ready = stream.take { messages in
            eventLoop.execute {
                let (handler, context) = loopBound.value
                handler.send(messages, of: stream, context: context)
            }
        }
        if let ready { send(ready, of: stream, context: context) }
    }

    /// Writes `messages` of `stream` (if it is still the one open here), and ends the answer after the last.
    private func send(_ messages: [LiveMessage], of stream: LiveSubscription, context: ChannelHandlerContext) {
        guard case .streaming(let opened) = phase, opened.stream === stream else { return }
        waiting = false
        var buffer = context.channel.allocator.buffer(capacity: 256)
        var ended = messages.isEmpty
        for message in messages { ended = LiveRoutes.write(message, to: &buffer) || ended }
        if buffer.readableBytes > 0 { context.write(wrapOutboundOut(.body(buffer)), promise: nil) }
        guard ended else {
            context.flush()
            awaitMessages(context: context)
            return
        }
        opened.close()
        finishAnswer(context: context)
    }

    /// Ends the live request's response; then the connection closes, or serves what came after it.
    private func finishAnswer(context: ChannelHandlerContext) {
        phase = .passing
        waiting = false
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if closeAfterAnswer || quiescing {
            let closer = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.whenComplete { _ in closer.value.close(promise: nil) }
            return
        }
        guard !held.isEmpty || readHeld else { return }
        let parts = held
        held = []
        for part in parts { receive(part, context: context) }
        context.fireChannelReadComplete()
        if readHeld, held.isEmpty {
            readHeld = false
            context.read()
        }
    }
}

/// What Hummingbird's `Date` header says of now (its cache of it is its own).
private func httpDate() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    var text = [CChar](repeating: 0, count: 40)
    let count = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
    return String(decoding: text.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Gathers a response's body (a problem document) to be written from the event loop.
private final class CollectedBody {
    var buffer = ByteBuffer()
}

private struct CollectingWriter: ResponseBodyWriter {
    let into: CollectedBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        into.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
