import Foundation
import Logging
import PantryBus
import PantryHTTP
import PantryWire
import ServiceLifecycle
import ZeroMQ

/// The API's `RecipePort`: the fetch worker's socket, over ZeroMQ. A service: its connection's
/// socket thread runs in `run()`.
final class FetchConnection: Service, RecipePort {
    private let connection: RequestConnection
    /// What the worker is told it has: this process's own wait, less a second for the way back,
    /// so that a slow upstream is reported as such rather than as a silent worker.
    private let deadlineMs: Int

    init(context: ZMQContext, endpoint: String, timeout: Duration, logger: Logger) throws {
        // Immediate: with the worker stopped a request fails at once (a 503 naming it), not after `timeout`.
        connection = try RequestConnection(context: context, endpoint: endpoint, timeout: timeout, immediate: true, logger: logger)
        deadlineMs = max(100, Int(timeout / .milliseconds(1)) - 1_000)
    }

    func run() async throws {
        try await connection.run()
    }

    func send(_ request: FetchRequest, client: String?, timeout: Duration?) async throws -> Data {
        do {
            return try await connection.send(Data(request.json(client: client, deadlineMs: deadlineMs)), timeout: timeout)
        } catch let failure as RequestConnection.Unavailable {
            throw PortUnavailable(failure.description, notConnected: failure.notConnected)
        }
    }
}
