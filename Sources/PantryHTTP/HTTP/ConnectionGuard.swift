import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Per connection, after HTTP decoding: a request's head must arrive within `headerTimeout` of
/// the connection opening or of the previous response (slowloris trickles headers byte by byte,
/// which an idle timeout alone never closes), its body within `bodyTimeout`, and no more than
/// `maxConnections` connections are open at once, nor more than `maxConnectionsPerAddress` from
/// one address (past `maxConnections` the rest are closed on arrival: 4,100 idle connections from 4
/// addresses took every slot, and 79 of 130 other clients' requests were reset; past the address's
/// cap a connection's first request is answered 429 `too_many_connections` with `Retry-After`
/// and the connection closed, so a client tells a limit from a crash: 500-request bursts from
/// one address lost 84-198 requests to resets; it gets `refusedGrace` to send it). 500 slowloris
/// and 2,000 idle connections all stayed open before. Within `shedMargin` of `maxConnections` a
/// new connection first closes an idle one of the address holding the most, one that never
/// completed a request first (`OpenConnections.shedIdle`): many addresses each under their cap
/// no longer fill every slot. A request the HTTP parser refuses is
/// answered with a problem document, as every other error is (it got an empty 400, or a 500 and
/// an error log when the bad bytes were in a chunked body).
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
        var maxConnectionsPerAddress = 256
        /// Load balancers, whose connections carry every client's requests: not capped per address.
        var uncappedAddresses: Set<String> = []
        /// Within this many of `maxConnections`, each new connection first closes an idle one of
        /// the address holding the most (`OpenConnections.shedIdle`).
        var shedMargin = 64
        /// An idle connection that has not completed a request in this long is shed before any other.
        var unproductiveAfter: TimeAmount = .seconds(3)
    }

    /// How long a connection past its address's cap may take to send the request it is refused.
    static let refusedGrace: TimeAmount = .seconds(1)

    /// Connections open now, in all and per address, shared by every connection's guard.
    final class OpenConnections: Sendable {
        let count = Atomic<Int>(0)
        private let perAddress = Mutex<[String: Int]>([:])

        /// Counts one more from `address`; false when that is past `limit` (nothing counted then).
        func open(from address: String, limit: Int) -> Bool {
            perAddress.withLock { counts in
                let now = counts[address, default: 0] + 1
                guard now <= limit else { return false }
                counts[address] = now
                return true
            }
        }

        func close(from address: String) {
            perAddress.withLock { counts in
                let left = counts[address, default: 1] - 1
                counts[address] = left > 0 ? left : nil
            }
        }

        func count(from address: String) -> Int { perAddress.withLock { $0[address, default: 0] } }

        /// A connection waiting for a request's head, which may be closed to make room.
        struct Idle {
            var channel: any Channel
            var since: NIODeadline
            /// It has completed a request before (a keep-alive connection between requests).
            var served: Bool
        }

        /// The idle connections by address (those counted per address only).
        private let idle = Mutex<[String: [ObjectIdentifier: Idle]]>([:])

        func markIdle(_ id: ObjectIdentifier, address: String, _ connection: Idle) {
            idle.withLock { $0[address, default: [:]][id] = connection }
        }

        func markBusy(_ id: ObjectIdentifier, address: String) {
            idle.withLock { connections in
                connections[address]?[id] = nil
                if connections[address]?.isEmpty == true { connections[address] = nil }
            }
        }

        /// Closes one idle connection to make room for a new one, and says whether it did. Issue 45:
        /// 20 addresses each under the per-address cap held every one of the 4,096 slots with idle
        /// connections, and a client that behaves got 0 answers of 50. So the victim comes from
        /// the address holding the most connections now (a client that behaves holds a few), and
        /// among its idle ones first one that has not completed a request in `unproductiveAfter`
        /// (opened and never used: what a flood holds), else its longest idle.
        func shedIdle(unproductiveAfter: TimeAmount) -> Bool {
            let counts = perAddress.withLock { $0 }
            let cutoff = NIODeadline.now() - unproductiveAfter
            let victim: (any Channel)? = idle.withLock { connections in
                let heaviest = connections.keys.max { counts[$0, default: 0] < counts[$1, default: 0] }
                guard let address = heaviest, let theirs = connections[address] else { return nil }
                let unproductive = theirs.filter { !$0.value.served && $0.value.since <= cutoff }
                guard let (id, chosen) = (unproductive.isEmpty ? theirs : unproductive).min(by: { $0.value.since < $1.value.since })
                else { return nil }
                connections[address]?[id] = nil
                if connections[address]?.isEmpty == true { connections[address] = nil }
                return chosen.channel
            }
            victim?.close(promise: nil)
            return victim != nil
        }
    }

    private let limits: Limits
    private let open: OpenConnections
    /// When the connection is closed unless the request (or the next one) moves on; nil while a
    /// request is being answered. Every request moves it twice, so a timer is not scheduled and
    /// cancelled each time: the one timer, when it fires, closes or waits for the deadline as it
    /// is then (`/health` went from 39 to 26-31 microseconds of API CPU a request, bench-http).
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerFiresAt = NIODeadline.distantFuture
    private var counted = false
    /// The peer's address while it is counted against `maxConnectionsPerAddress`.
    private var countedAddress: String?
    /// A response has begun and not ended: a problem written now would corrupt it.
    private var responding = false
    /// Past its address's cap: its request is answered `too_many_connections`, then it closes.
    private var refused = false
    /// It has completed a request: idle now, it is a keep-alive connection, not an unused one.
    private var served = false
    private var channel: (any Channel)?

    init(limits: Limits, open: OpenConnections) {
        self.limits = limits
        self.open = open
    }

    /// What a connection reads into first: NIO keeps its read buffer for the connection's life,
    /// and its default of 2 KiB is twice a request's usual head (a bearer token's is 400 bytes, a
    /// browser's 600-900). A longer one fills it and the next read is larger, as before.
    static let readBuffer = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536)

    func handlerAdded(context: ChannelHandlerContext) {
        // Set before the first read (the channel is being initialised, on its event loop).
        context.channel.setOption(ChannelOptions.recvAllocator, value: Self.readBuffer).whenFailure { _ in }
        let now = open.count.add(1, ordering: .relaxed).newValue
        counted = true
        // Near the cap an idle connection of the heaviest address makes room; past it, without
        // one to close, the new connection is closed.
        if now > limits.maxConnections - limits.shedMargin {
            let shed = open.shedIdle(unproductiveAfter: limits.unproductiveAfter)
            if now > limits.maxConnections, !shed {
                context.close(promise: nil)
                return
            }
        }
        if let address = context.channel.remoteAddress?.ipAddress, !limits.uncappedAddresses.contains(address) {
            guard open.open(from: address, limit: limits.maxConnectionsPerAddress) else {
                refused = true
                arm(Self.refusedGrace, context: context)
                return
            }
            countedAddress = address
            channel = context.channel
        }
        arm(limits.headerTimeout, context: context)
        markIdle()
    }

    /// Waiting for a request's head: a connection that may be shed (`OpenConnections.shedIdle`).
    private func markIdle() {
        guard let address = countedAddress, let channel else { return }
        open.markIdle(ObjectIdentifier(self), address: address, .init(channel: channel, since: .now(), served: served))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if counted { open.count.subtract(1, ordering: .relaxed) }
        counted = false
        if let address = countedAddress {
            open.markBusy(ObjectIdentifier(self), address: address)
            open.close(from: address)
        }
        countedAddress = nil
        channel = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused {
            // Answered once the request is read: closing with it unread would reset the connection.
            if case .end = unwrapInboundIn(data) {
                deadline = nil
                respond(Problem(.tooManyConnections, detail: "too many connections are open from this address; retry shortly",
                                headers: [.retryAfter: "1"]), context: context)
            }
            return
        }
        switch unwrapInboundIn(data) {
        case .head:
            arm(limits.bodyTimeout, context: context)
            if let address = countedAddress { open.markBusy(ObjectIdentifier(self), address: address) }
        case .end: deadline = nil
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: responding = true
        case .end:
            responding = false
            served = true
            // The response is out: the next request's head is due within the header timeout.
            arm(limits.headerTimeout, context: context)
            if !refused { markIdle() }
        case .body: break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        deadline = nil
        guard !responding, !refused else {
            context.close(promise: nil)
            return
        }
        let problem = parserError == .headerOverflow
            ? Problem(.headersTooLarge, detail: "the request's head is larger than this server reads")
            : Problem(.malformedRequest, detail: "the request is not valid HTTP/1.1: \(parserError)")
        respond(problem, context: context)
    }

    /// Writes `problem` and closes the connection once it is out.
    private func respond(_ problem: Problem, context: ChannelHandlerContext) {
        let body = problem.document
        var fields = problem.headers
        fields[.contentType] = "application/problem+json"
        fields[.contentLength] = "\(body.count)"
        fields[.connection] = "close"
        let head = HTTPResponse(status: problem.status, headerFields: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        let due = NIODeadline.now() + timeout
        deadline = due
        if timer == nil || timerFiresAt > due { schedule(at: due, context: context) }
    }

    private func schedule(at time: NIODeadline, context: ChannelHandlerContext) {
        timer?.cancel()
        timerFiresAt = time
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: time) {
            let (guardian, context) = loopBound.value
            guardian.timer = nil
            guard let deadline = guardian.deadline else { return }
            if deadline <= .now() {
                context.close(promise: nil)
            } else {
                guardian.schedule(at: deadline, context: context)
            }
        }
    }
}
