import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// One `GET /v1/me/live` connection of its own, read as its bytes arrive: the live test client
/// returns an answer only once it has ended, and a stream stays open.
final class LiveStream: Sendable {
    /// An event with data, as the stream sent it.
    struct Event: Sendable, CustomStringConvertible {
        var id: String?
        var event: String
        var data: Data

        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:] }
        var description: String { "\(event) \(id ?? "-") \(String(decoding: data, as: UTF8.self))" }
    }

    private struct State: Sendable {
        var head: HTTPResponseHead?
        var unread: [UInt8] = []
        var events: [Event] = []
        var closed = false
        /// Answers to requests sent before the stream's on its connection, still to come.
        var answersBefore = 0
    }

    private let state = Mutex(State())
    /// Says that something arrived (a head, an event, the end), to whoever waits for it.
    private let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    private let channel: Mutex<(any Channel)?> = Mutex(nil)

    private init() {
        (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Opens the stream as `token`'s, from `lastEventId` when given, and waits for its head. On its
    /// connection, a `GET` of each of `before` is sent first, each answer awaited before the next
    /// request (keep-alive) or all at once with the stream's (`pipelined`).
    static func open(port: Int, token: String, lastEventId: String? = nil, before: [String] = [],
                     pipelined: Bool = false) async throws -> LiveStream {
        let stream = LiveStream()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Reader(stream: stream))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        stream.channel.withLock { $0 = channel }
        let authorized = HTTPHeaders([("Host", "localhost"), ("Authorization", "Bearer \(token)")])
        stream.state.withLock { $0.answersBefore = before.count }
        for (index, path) in before.enumerated() {
            channel.write(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: authorized)),
                          promise: nil)
            try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
            if !pipelined { _ = try await stream.wait(until: { $0.answersBefore == before.count - index - 1 }) }
        }
        var headers = authorized
        headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventId { headers.add(name: "Last-Event-ID", value: lastEventId) }
        channel.write(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/me/live", headers: headers)),
                      promise: nil)
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        _ = try await stream.wait(until: { $0.head != nil || $0.closed })
        return stream
    }

    var status: Int? { state.withLock { $0.head.map { Int($0.status.code) } } }
    func header(_ name: String) -> String? { state.withLock { $0.head?.headers.first(name: name) } }
    /// The server ended the stream (and closed the connection).
    var closed: Bool { state.withLock { $0.closed } }

    /// The events so far, once `condition` holds for them (or the stream has closed).
    func events(timeout: Duration = .seconds(10), until condition: @escaping @Sendable ([Event]) -> Bool) async throws -> [Event] {
        try await wait(timeout: timeout) { condition($0.events) }.events
    }

    func close() async {
        try? await channel.withLock { $0 }?.close()
    }

    private func wait(timeout: Duration = .seconds(10), until condition: @escaping @Sendable (State) -> Bool) async throws -> State {
        try await withThrowingTaskGroup(of: State.self) { group in
            group.addTask {
                var arrivals = self.arrivals.makeAsyncIterator()
                while true {
                    let now = self.state.withLock { $0 }
                    if condition(now) || now.closed { return now }
                    guard await arrivals.next() != nil else { return self.state.withLock { $0 } }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                let now = self.state.withLock { $0 }
                Issue.record("timed out after \(timeout); got \(now.events)")
                return now
            }
            defer { group.cancelAll() }
            return try await group.next() ?? self.state.withLock { $0 }
        }
    }

    fileprivate func received(_ part: HTTPClientResponsePart) {
        state.withLock { state in
            if state.answersBefore > 0 {
                // An answer to a request sent before the stream's, each expected to succeed.
                if case .head(let head) = part, head.status != .ok { Issue.record("a request before the stream's: \(head.status)") }
                if case .end = part { state.answersBefore -= 1 }
                return
            }
            switch part {
            case .head(let head):
                state.head = head
            case .body(let buffer):
                state.unread += buffer.readableBytesView
                // Events end with an empty line; a field is "name: value" (as the API writes them).
                while let end = state.unread.firstRange(of: [10, 10]) {
                    let block = String(decoding: state.unread[..<end.lowerBound], as: UTF8.self)
                    state.unread.removeSubrange(..<end.upperBound)
                    var event = Event(id: nil, event: "message", data: Data())
                    var hasData = false
                    for line in block.split(separator: "\n") {
                        guard let colon = line.firstRange(of: ": ") else { continue }
                        let (field, value) = (line[..<colon.lowerBound], String(line[colon.upperBound...]))
                        switch field {
                        case "id": event.id = value
                        case "event": event.event = value
                        case "data": event.data = Data(value.utf8); hasData = true
                        default: break
                        }
                    }
                    if hasData { state.events.append(event) }
                }
            case .end:
                state.closed = true
            }
        }
        arrived.yield()
    }

    fileprivate func channelClosed() {
        state.withLock { $0.closed = true }
        arrived.yield()
    }
}

private final class Reader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    let stream: LiveStream

    init(stream: LiveStream) { self.stream = stream }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        stream.received(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        stream.channelClosed()
        context.fireChannelInactive()
    }
}
