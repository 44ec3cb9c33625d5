import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// `pantry-bench live-streams`: holds one `GET /v1/me/live` stream per token for `ops/bench-live`,
/// which sends the commands and reads the API's figures. A Python client could not open 10,000
/// streams on 2 cores within 300 s, and its arrival times carried its own event loop's delay:
/// here one NIO thread holds them all and stamps each change with `CLOCK_MONOTONIC`, the clock of
/// Python's `time.monotonic()`, so the sender's times and these compare.
struct LiveStreamsHolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-streams",
        abstract: "Hold one live stream per token; print 'opened N' when all are open, write the changes' arrival times at stdin's end.")

    @Option(help: "The API's port on 127.0.0.1.") var port: Int
    @Option(help: "A file of bearer tokens, one a line.") var tokens: String
    @Option(help: "Where to write {position: arrival seconds on CLOCK_MONOTONIC} as JSON.") var output: String
    @Option(help: "Connections being opened at once (more overflow the API's listen backlog).") var opening = 200

    func run() throws {
        let tokens = try String(contentsOfFile: self.tokens, encoding: .utf8).split(separator: "\n").map(String.init)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let arrivals = Arrivals()
        let opener = StreamOpener(port: port, tokens: tokens, group: group, arrivals: arrivals, atOnce: opening)
        try opener.openAll()
        FileHandle.standardOutput.write(Data("opened \(tokens.count)\n".utf8))
        // The sender says when it is done by closing our stdin.
        while readLine() != nil {}
        let json = try JSONSerialization.data(withJSONObject: arrivals.snapshot().reduce(into: [String: Double]()) { $0[String($1.key)] = $1.value })
        try json.write(to: URL(fileURLWithPath: output))
        FileHandle.standardError.write(Data("live-streams: \(arrivals.count) changes arrived, \(arrivals.ended) streams ended early\n".utf8))
        try? group.syncShutdownGracefully()
    }
}

/// Seconds on `CLOCK_MONOTONIC`.
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// When each change (by log position) first reached a stream.
private final class Arrivals: Sendable {
    private let state = NIOLockedValueBox((times: [Int64: Double](), ended: 0))

    func arrived(_ position: Int64, at time: Double) {
        state.withLockedValue { if $0.times[position] == nil { $0.times[position] = time } }
    }

    func streamEnded() { state.withLockedValue { $0.ended += 1 } }
    func snapshot() -> [Int64: Double] { state.withLockedValue { $0.times } }
    var count: Int { state.withLockedValue { $0.times.count } }
    var ended: Int { state.withLockedValue { $0.ended } }
}

/// Opens the streams `atOnce` at a time, each retried until its answer's head says 200.
private final class StreamOpener: Sendable {
    let port: Int, tokens: [String], group: EventLoopGroup, arrivals: Arrivals, atOnce: Int
    private let opened = NIOLockedValueBox((open: 0, failures: 0, lastError: ""))

    init(port: Int, tokens: [String], group: EventLoopGroup, arrivals: Arrivals, atOnce: Int) {
        (self.port, self.tokens, self.group, self.arrivals, self.atOnce) = (port, tokens, group, arrivals, atOnce)
    }

    func openAll() throws {
        let started = monotonicSeconds()
        var next = 0
        let slots = DispatchSemaphore(value: atOnce)
        let done = DispatchGroup()
        while next < tokens.count {
            slots.wait()
            done.enter()
            open(tokens[next], attempt: 0) { slots.signal(); done.leave() }
            next += 1
            if next % 1_000 == 0 {
                let state = opened.withLockedValue { $0 }
                FileHandle.standardError.write(Data("live-streams: \(state.open) open, \(state.failures) retried (\(state.lastError)), \(Int(monotonicSeconds() - started)) s\n".utf8))
            }
        }
        done.wait()
        let state = opened.withLockedValue { $0 }
        FileHandle.standardError.write(Data("live-streams: \(state.open) open in \(String(format: "%.1f", monotonicSeconds() - started)) s, \(state.failures) attempts retried\n".utf8))
    }

    private func open(_ token: String, attempt: Int, whenOpen: @escaping @Sendable () -> Void) {
        let arrivals = self.arrivals
        let headOK = group.next().makePromise(of: Void.self)
        ClientBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(LiveStreamReader(arrivals: arrivals, headOK: headOK)) }
            }
            .connect(host: "127.0.0.1", port: port)
            .flatMap { channel in
                channel.writeAndFlush(ByteBuffer(string: "GET /v1/me/live HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer \(token)\r\n\r\n"))
                    .flatMap { headOK.futureResult }
                    .flatMapErrorThrowing { error in channel.close(promise: nil); throw error }
            }
            .whenComplete { result in
                switch result {
                case .success:
                    self.opened.withLockedValue { $0.open += 1 }
                    whenOpen()
                case .failure(let error):
                    headOK.fail(error)
                    self.opened.withLockedValue { $0.failures += 1; $0.lastError = "\(error)" }
                    guard attempt < 20 else {
                        FileHandle.standardError.write(Data("live-streams: a stream could not be opened: \(error)\n".utf8))
                        exit(1)
                    }
                    self.group.next().scheduleTask(in: .milliseconds(100 * Int64(attempt + 1))) {
                        self.open(token, attempt: attempt + 1, whenOpen: whenOpen)
                    }
                }
            }
    }
}

/// Reads one stream: the answer's head, then SSE lines. A change is an `id:` line followed by a
/// `data:` line (a heartbeat has an `event:` line between them).
private final class LiveStreamReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let arrivals: Arrivals
    private let headOK: EventLoopPromise<Void>
    private var pending: [UInt8] = []
    private var inBody = false
    private var lastId: Int64?

    init(arrivals: Arrivals, headOK: EventLoopPromise<Void>) {
        self.arrivals = arrivals
        self.headOK = headOK
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = monotonicSeconds()
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        if !inBody {
            guard let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let statusLine = String(decoding: pending[..<(pending.firstIndex(of: UInt8(ascii: "\r")) ?? end.lowerBound)], as: UTF8.self)
            guard statusLine.contains(" 200 ") else {
                headOK.fail(OpenFailure(status: statusLine))
                context.close(promise: nil)
                return
            }
            inBody = true
            pending.removeSubrange(..<end.upperBound)
            headOK.succeed()
        }
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = pending[..<newline]
            if line.starts(with: "id: ".utf8) {
                lastId = Int64(String(decoding: line.dropFirst(4), as: UTF8.self))
            } else if line.starts(with: "data: ".utf8), let id = lastId {
                arrivals.arrived(id, at: now)
                lastId = nil
            } else if !line.isEmpty {
                lastId = nil
            }
            pending.removeSubrange(...newline)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if inBody { arrivals.streamEnded() } else { headOK.fail(OpenFailure(status: "closed before the answer's head")) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        headOK.fail(error)
        context.close(promise: nil)
    }

    struct OpenFailure: Error, CustomStringConvertible {
        let status: String
        var description: String { status }
    }
}
