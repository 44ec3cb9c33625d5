import Foundation
import Logging
import PantryBus
import PantryTestSupport
import Synchronization
import Testing
import ZeroMQ

/// `RequestConnection` over real ZeroMQ sockets to workers that answer with their own name: with
/// several workers named, requests go only to those connected, and with none a request fails at
/// once instead of waiting out its timeout.
@Suite struct RequestConnectionTests {
    /// A worker: a ROUTER on `endpoint` answering every request with `answer(request)` (nothing
    /// when nil), on its own thread, until `stop()` closes the socket (as a host going down would).
    final class NamedWorker: Sendable {
        private let running = Atomic<Bool>(true)
        private let finished = DispatchSemaphore(value: 0)

        convenience init(context: ZMQContext, endpoint: String, name: String) throws {
            try self.init(context: context, endpoint: endpoint) { _ in Data(name.utf8) }
        }

        init(context: ZMQContext, endpoint: String, answer: @escaping @Sendable (Data) -> Data?) throws {
            let bound = DispatchSemaphore(value: 0)
            let failure = Mutex<(any Error)?>(nil)
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
                    guard let request = try? router.receive(), request.count == 3,
                          let reply = answer(request[2]) else { continue }
                    _ = try? router.send([request[0], request[1], reply])
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

    /// Who answers one request within `timeout`: a worker, nobody in time (`late`), or the
    /// connection itself, which has no worker connected (`noWorker`).
    enum Answer: Equatable { case name(String), late, noWorker }

    func ask(_ connection: RequestConnection, within timeout: Duration = .milliseconds(200)) async -> Answer {
        do {
            return .name(String(decoding: try await connection.send(Data("{}".utf8), timeout: timeout), as: UTF8.self))
        } catch {
            return "\(error)".hasPrefix("no worker") ? .noWorker : .late
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func requestsGoOnlyToTheWorkersThatAreUpAndFailAtOnceWhenNoneIs() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let first = try NamedWorker(context: context, endpoint: endpoint("first"), name: "first")
        let connection = try RequestConnection(context: context, endpoint: "\(endpoint("first")) \(endpoint("second"))",
                                               timeout: .seconds(20), logger: quiet)
        let running = Task.immediate { try await connection.run() }
        defer { running.cancel() }
        // The connection's socket links to its peers on libzmq's own thread and tells nobody: each
        // step waits until requests show the link made or gone.
        #expect(try await waitUntil { await ask(connection) == .name("first") }, "connected to the first")
        // The second worker is not there: nothing waits for it.
        #expect(Set(try await names(connection, count: 10)) == ["first"])

        let second = try NamedWorker(context: context, endpoint: endpoint("second"), name: "second")
        #expect(try await waitUntil { await ask(connection) == .name("second") }, "connected to the second")
        #expect(Set(try await names(connection, count: 10)) == ["first", "second"], "round robin once both are up")

        first.stop()
        // Two answers in a row are two turns of the round robin: neither went to a link still there.
        #expect(try await waitUntil { await [ask(connection), ask(connection)] == [.name("second"), .name("second")] },
                "the first's link is gone")
        #expect(Set(try await names(connection, count: 10)) == ["second"], "the one that went down gets nothing")

        second.stop()
        #expect(try await waitUntil { await ask(connection) == .noWorker }, "the second's link is gone")
        let clock = ContinuousClock()
        let asked = clock.now
        await #expect(throws: RequestConnection.Unavailable.self) { try await connection.send(Data("{}".utf8)) }
        #expect(clock.now - asked < .seconds(5), "at once, not after the 20 s timeout (with room for a loaded CI machine)")
        try? FileManager.default.removeItem(at: directory)
    }

    /// Issue 33: the fetch worker stopped held every recipe screen for the API's whole 20 s timeout.
    @Test("With immediate, a single worker that went down fails a request at once, and serves again once it is back",
          .timeLimit(.minutes(1)))
    func aSingleWorkerGoneFailsAtOnceWithImmediate() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let connection = try RequestConnection(context: context, endpoint: endpoint("fetch"), timeout: .seconds(20),
                                               immediate: true, logger: quiet)
        let running = Task.immediate { try await connection.run() }
        defer { running.cancel() }
        let worker = try NamedWorker(context: context, endpoint: endpoint("fetch"), name: "fetch")
        #expect(try await waitUntil { await ask(connection) == .name("fetch") }, "connected")
        worker.stop()
        #expect(try await waitUntil { await ask(connection) == .noWorker }, "the link is gone")
        let clock = ContinuousClock()
        let asked = clock.now
        do {
            _ = try await connection.send(Data("{}".utf8))
            Issue.record("answered with no worker")
        } catch let error as RequestConnection.Unavailable {
            #expect(error.notConnected)
        }
        #expect(clock.now - asked < .seconds(5), "at once, not after the 20 s timeout (with room for a loaded CI machine)")
        let back = try NamedWorker(context: context, endpoint: endpoint("fetch"), name: "fetch again")
        defer { back.stop() }
        #expect(try await waitUntil { await ask(connection) == .name("fetch again") }, "served again")
        try? FileManager.default.removeItem(at: directory)
    }

    /// Callers on many tasks at once each get their own answer: requests queued in memory, with
    /// one wake-up of the socket thread per burst, are neither lost nor mixed up.
    @Test(.timeLimit(.minutes(1)))
    func manyCallersAtOnceEachGetTheirOwnAnswer() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let echo = try NamedWorker(context: context, endpoint: endpoint("echo")) { $0 }
        defer { echo.stop() }
        let connection = try RequestConnection(context: context, endpoint: endpoint("echo"), timeout: .seconds(20),
                                               logger: Logger(label: "test"))
        let running = Task.immediate { try await connection.run() }
        defer { running.cancel() }
        let mismatched = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<3_000 {
                group.addTask { String(decoding: try await connection.send(Data("\(n)".utf8)), as: UTF8.self) != "\(n)" }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(mismatched == 0)
        try? FileManager.default.removeItem(at: directory)
    }

    /// A request the peer never answers fails once its own deadline passes, and the connection
    /// goes on serving the others.
    @Test(.timeLimit(.minutes(1)))
    func anUnansweredRequestFailsAtItsDeadlineAndTheOthersAreStillAnswered() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let worker = try NamedWorker(context: context, endpoint: endpoint("picky")) { $0 == Data("ignored".utf8) ? nil : $0 }
        defer { worker.stop() }
        let connection = try RequestConnection(context: context, endpoint: endpoint("picky"), timeout: .seconds(20),
                                               logger: Logger(label: "test"))
        let running = Task.immediate { try await connection.run() }
        defer { running.cancel() }
        let clock = ContinuousClock()
        let asked = clock.now
        await #expect(throws: RequestConnection.Unavailable.self) {
            try await connection.send(Data("ignored".utf8), timeout: .milliseconds(300))
        }
        let waited = clock.now - asked
        #expect(waited >= .milliseconds(300) && waited < .seconds(10), "\(waited)")
        #expect(try await connection.send(Data("answered".utf8)) == Data("answered".utf8))
        try? FileManager.default.removeItem(at: directory)
    }

    /// Lines joined by newlines: a batch frame for the tests, which need no JSON.
    static let lines = RequestConnection.Batching(
        runs: { documents in stride(from: 0, to: documents.count, by: 100).map { $0..<min($0 + 100, documents.count) } },
        join: { Data($0.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n").utf8) },
        split: { frame in String(decoding: frame, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map { Data($0.utf8) } })

    /// With batching (the API's line to the core), the requests waiting when the socket thread
    /// wakes cross as one frame, at most 100 each (its `runs`), and each caller still gets its own answer.
    @Test("Requests waiting together cross in one frame each way and each caller gets its own answer")
    func requestsWaitingTogetherCrossInOneFrame() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        final class Counts: Sendable {
            let frames = Atomic<Int>(0)
            let largest = Atomic<Int>(0)
        }
        let counts = Counts()
        let echo = try NamedWorker(context: context, endpoint: endpoint("batches")) { frame in
            counts.frames.add(1, ordering: .relaxed)
            counts.largest.max(frame.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count, ordering: .relaxed)
            return frame
        }
        defer { echo.stop() }
        let connection = try RequestConnection(context: context, endpoint: endpoint("batches"), timeout: .seconds(20),
                                               batching: Self.lines, logger: Logger(label: "test"))
        let running = Task.immediate { try await connection.run() }
        defer { running.cancel() }
        let requests = 3_000
        let mismatched = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<requests {
                group.addTask { String(decoding: try await connection.send(Data("\(n)".utf8)), as: UTF8.self) != "\(n)" }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(mismatched == 0)
        #expect(counts.frames.load(ordering: .relaxed) < requests, "some requests shared a frame")
        #expect(counts.largest.load(ordering: .relaxed) <= 100, "no frame holds more than its run")
        try? FileManager.default.removeItem(at: directory)
    }

    /// A batch answered with the wrong number of answers (a peer that refused the frame whole)
    /// fails each of its callers rather than handing anyone another's answer.
    @Test("A batch answered with the wrong number of answers fails each of its callers")
    func aBatchAnsweredWronglyFailsEachCaller() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let refuser = try NamedWorker(context: context, endpoint: endpoint("refuser")) { frame in
            frame.contains(UInt8(ascii: "\n")) ? Data("refused".utf8) : frame
        }
        defer { refuser.stop() }
        let connection = try RequestConnection(context: context, endpoint: endpoint("refuser"), timeout: .seconds(20),
                                               batching: Self.lines, logger: Logger(label: "test"))
        let running = Task.immediate { try await connection.run() }
        defer { running.cancel() }
        let answers = await withTaskGroup(of: String.self) { group in
            for n in 0..<500 {
                group.addTask {
                    do { return String(decoding: try await connection.send(Data("\(n)".utf8)), as: UTF8.self) }
                    catch { return "failed" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(!answers.contains("refused"), "nobody got the refusal as their answer")
        #expect(answers.contains("failed"), "some requests went in a batch")
        #expect(answers.allSatisfy { $0 == "failed" || Int($0) != nil })
        try? FileManager.default.removeItem(at: directory)
    }
}
