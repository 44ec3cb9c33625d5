import Foundation
import Logging
import PantryBus
import Synchronization
import Testing
import ZeroMQ

/// `RequestConnection` over real ZeroMQ sockets to workers that answer with their own name: with
/// several workers named, requests go only to those connected, and with none a request fails at
/// once instead of waiting out its timeout.
@Suite struct RequestConnectionTests {
    /// A worker: a ROUTER on `endpoint` answering every request with `name`, on its own thread,
    /// until `stop()` closes the socket (as a host going down would).
    final class NamedWorker: Sendable {
        private let running = Atomic<Bool>(true)
        private let finished = DispatchSemaphore(value: 0)

        init(context: ZMQContext, endpoint: String, name: String) throws {
            let bound = DispatchSemaphore(value: 0)
            let failure = Mutex<(any Error)?>(nil)
            let answer = Data(name.utf8)
            // The thread makes and owns its socket, as the workers do.
            Thread { [self] in
                defer { finished.signal() }
                let router: ZMQSocket
                do {
                    router = try ZMQSocket(context: context, type: .router)
                    try router.setReceiveTimeout(milliseconds: 50)
                    try router.bind(endpoint)
                } catch {
                    failure.withLock { $0 = error }
                    bound.signal()
                    return
                }
                bound.signal()
                while running.load(ordering: .relaxed) {
                    guard let request = try? router.receive(), request.count == 3 else { continue }
                    _ = try? router.send([request[0], request[1], answer])
                }
                router.close()
            }.start()
            bound.wait()
            if let error = failure.withLock({ $0 }) { throw error }
        }

        func stop() {
            running.store(false, ordering: .relaxed)
            finished.wait()
        }
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-requests-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func endpoint(_ name: String) -> String { "ipc://\(directory.appendingPathComponent("\(name).sock").path)" }

    func names(_ connection: RequestConnection, count: Int) async throws -> [String] {
        var answered: [String] = []
        for _ in 0..<count { answered.append(String(decoding: try await connection.send(Data("{}".utf8)), as: UTF8.self)) }
        return answered
    }

    @Test(.timeLimit(.minutes(1)))
    func requestsGoOnlyToTheWorkersThatAreUpAndFailAtOnceWhenNoneIs() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let first = try NamedWorker(context: context, endpoint: endpoint("first"), name: "first")
        let connection = try RequestConnection(context: context, endpoint: "\(endpoint("first")) \(endpoint("second"))",
                                               timeout: .seconds(5), logger: quiet)
        try await Task.sleep(for: .milliseconds(200))
        // The second worker is not there: nothing waits for it.
        #expect(Set(try await names(connection, count: 10)) == ["first"])

        let second = try NamedWorker(context: context, endpoint: endpoint("second"), name: "second")
        try await Task.sleep(for: .milliseconds(500))
        #expect(Set(try await names(connection, count: 10)) == ["first", "second"], "round robin once both are up")

        first.stop()
        try await Task.sleep(for: .milliseconds(300))
        #expect(Set(try await names(connection, count: 10)) == ["second"], "the one that went down gets nothing")

        second.stop()
        // Time for the disconnection to be noticed, with room for a loaded CI machine.
        try await Task.sleep(for: .seconds(1))
        let clock = ContinuousClock()
        let asked = clock.now
        await #expect(throws: RequestConnection.Unavailable.self) { try await connection.send(Data("{}".utf8)) }
        #expect(clock.now - asked < .seconds(3), "at once, not after the 5 s timeout")
        try? FileManager.default.removeItem(at: directory)
    }
}
