import ArgumentParser
import Foundation
import Histogram
import PantryBus
import Synchronization
import ZeroMQ

/// Cache hits through a running `pantry fetch` (started by `ops/bench-fetch`): latency one at a
/// time and throughput with many in flight, beside a bare ZeroMQ echo over the same kind of socket.
struct FetchBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch")

    @Option(help: "The fetch worker's endpoint.") var endpoint: String
    @Option(help: "Requests in each phase.") var requests = 20_000
    @Option(help: "Requests in flight in the throughput phase.") var window = 64

    func run() throws {
        let context = try ZMQContext()
        let request = Data(#"{"kind":"detail","id":"spoonacular:716429"}"#.utf8)
        let client = try RequestClient(context: context, endpoint: endpoint)
        let warm = try client.send(request)
        guard String(decoding: warm, as: UTF8.self).contains(#""ok":true"#) else {
            throw ValidationError("the warm-up request failed: \(String(decoding: warm, as: UTF8.self).prefix(300))")
        }
        let hit = try client.send(request)
        guard String(decoding: hit, as: UTF8.self).contains(#""origin":"cache""#) else {
            throw ValidationError("the second request was not a cache hit: \(String(decoding: hit, as: UTF8.self).prefix(300))")
        }

        let fetch = try measure(requests) { _ = try client.send(request) }
        let echo = try EchoServer(context: context)
        let echoClient = try RequestClient(context: context, endpoint: echo.endpoint)
        let bare = try measure(requests) { _ = try echoClient.send(request) }
        echo.stop()

        let throughput = try pipelined(context: context, request: request)
        print("fetch cache hit  \(requests) one at a time: p50 \(bare.format(fetch, 50)) p99 \(bare.format(fetch, 99)) max \(bare.format(fetch, 100)); \(fmt(throughput)) requests/s with \(window) in flight")
        print("bare ZeroMQ echo \(requests) one at a time: p50 \(bare.format(bare, 50)) p99 \(bare.format(bare, 99))")
        print("ratio p99 fetch/echo \(fmt(Double(fetch.valueAtPercentile(99)) / Double(max(bare.valueAtPercentile(99), 1)), 2))   (target: p99 <= 1 ms on a cache hit)")
    }

    private func measure(_ count: Int, _ body: () throws -> Void) throws -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(highestTrackableValue: 10_000_000, numberOfSignificantValueDigits: .three)
        let clock = ContinuousClock()
        for _ in 0..<count {
            let began = clock.now
            try body()
            histogram.record(UInt64((clock.now - began) / .nanoseconds(1)))
        }
        return histogram
    }

    private func pipelined(context: ZMQContext, request: Data) throws -> Double {
        let socket = try ZMQSocket(context: context, type: .dealer)
        try socket.setReceiveTimeout(milliseconds: 10_000)
        try socket.connect(endpoint)
        let clock = ContinuousClock()
        let began = clock.now
        var sent = 0, received = 0
        while received < requests {
            while sent < requests && sent - received < window { try socket.send([request]); sent += 1 }
            guard try socket.receive() != nil else { throw ValidationError("the fetch worker stopped answering") }
            received += 1
        }
        return Double(requests) / seconds(clock.now - began)
    }
}

extension Histogram<UInt64> {
    func format(_ histogram: Histogram<UInt64>, _ percentile: Double) -> String {
        "\(fmt(Double(histogram.valueAtPercentile(percentile)) / 1_000_000, 3)) ms"
    }
}

/// The baseline: a ROUTER on its own thread that sends every message straight back.
final class EchoServer: Sendable {
    let endpoint = "ipc://\(NSTemporaryDirectory())pantry-echo-\(getpid()).sock"
    private let running = Atomic(true)

    init(context: ZMQContext) throws {
        let endpoint = self.endpoint
        let ready = DispatchSemaphore(value: 0)
        Thread { [self] in
            guard let socket = try? ZMQSocket(context: context, type: .router) else {
                ready.signal()
                return
            }
            try? socket.setReceiveTimeout(milliseconds: 50)
            try? socket.bind(endpoint)
            ready.signal()
            while running.load(ordering: .relaxed) {
                if let frames = try? socket.receive() { _ = try? socket.send(frames) }
            }
        }.start()
        ready.wait()
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
