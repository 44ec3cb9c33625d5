import NIOCore
import NIOHTTPTypes
import Synchronization

/// Per connection, after HTTP decoding: a request's head must arrive within `headerTimeout` of
/// the connection opening or of the previous response (slowloris trickles headers byte by byte,
/// which an idle timeout alone never closes), its body within `bodyTimeout`, and no more than
/// `maxConnections` connections are open at once (the rest are closed on arrival). 500 slowloris
/// and 2,000 idle connections all stayed open before.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    // Hummingbird adds it after its HTTP1 codec, which hands out swift-http-types parts.
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    struct Limits: Sendable {
        var headerTimeout: TimeAmount = .seconds(10)
        var bodyTimeout: TimeAmount = .seconds(30)
        var maxConnections = 4_096
    }

    /// Connections open now, shared by every connection's guard.
    final class OpenConnections: Sendable {
        let count = Atomic<Int>(0)
    }

    private let limits: Limits
    private let open: OpenConnections
    private var deadline: Scheduled<Void>?
    private var counted = false

    init(limits: Limits, open: OpenConnections) {
        self.limits = limits
        self.open = open
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let now = open.count.add(1, ordering: .relaxed).newValue
        counted = true
        if now > limits.maxConnections {
            context.close(promise: nil)
            return
        }
        arm(limits.headerTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        if counted { open.count.subtract(1, ordering: .relaxed) }
        counted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(limits.bodyTimeout, context: context)
        case .end: deadline?.cancel(); deadline = nil
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            // The response is out: the next request's head is due within the header timeout.
            arm(limits.headerTimeout, context: context)
        }
        context.write(data, promise: promise)
    }

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        deadline?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
    }
}
