import Foundation
import ZeroMQ

/// Upper bound for every blocking call in the tests, so a broken wrapper fails instead of hanging.
let testTimeoutMilliseconds = 2_000

func makeSocket(_ context: ZMQContext, _ type: ZMQSocketType) throws -> ZMQSocket {
    let socket = try ZMQSocket(context: context, type: type)
    try socket.setReceiveTimeout(milliseconds: testTimeoutMilliseconds)
    try socket.setSendTimeout(milliseconds: testTimeoutMilliseconds)
    return socket
}

/// Binds `server` to `endpoint` (by default a free loopback port) and connects `client` to it.
func connectedPair(
    _ context: ZMQContext,
    server serverType: ZMQSocketType,
    client clientType: ZMQSocketType,
    endpoint: String = "tcp://127.0.0.1:*"
) throws -> (server: ZMQSocket, client: ZMQSocket) {
    let server = try makeSocket(context, serverType)
    try server.bind(endpoint)
    let client = try makeSocket(context, clientType)
    try client.connect(server.lastEndpoint)
    return (server, client)
}

func frames(_ strings: String...) -> [Data] {
    strings.map { Data($0.utf8) }
}

/// A fresh directory for ipc:// socket files, removed by `body`'s end.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("zmq-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Hands a result from a helper thread to the test thread; the lock makes it Sendable.
final class ThreadResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private var value: Value?

    func set(_ newValue: Value) {
        lock.withLock { value = newValue }
        finished.signal()
    }

    /// The value, or nil if the thread did not deliver one within `timeout`.
    func wait(timeout: DispatchTimeInterval) -> Value? {
        guard finished.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { value }
    }
}
