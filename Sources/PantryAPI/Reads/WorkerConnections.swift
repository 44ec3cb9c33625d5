import Foundation
import Logging
import PantryBus
import PantryHTTP
import PantryWire
import ServiceLifecycle
import ZeroMQ

/// The API's `QueryPort`: one `RequestConnection` per kind of projection worker, over ZeroMQ. A
/// service: the socket threads of its connections run in `run()`.
final class WorkerConnections: Service, QueryPort {
    private let connections: [WorkerName: RequestConnection]

    init(context: ZMQContext, endpoints: BusEndpoints, timeout: Duration, logger: Logger) throws {
        var connections: [WorkerName: RequestConnection] = [:]
        for worker in WorkerName.allCases {
            connections[worker] = try RequestConnection(
                context: context, endpoint: endpoints.queries(of: worker),
                timeout: timeout, logger: logger)
        }
        self.connections = connections
    }

    func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for connection in connections.values { group.addTask { try await connection.run() } }
        }
    }

    func ask(_ query: QueryRequest, timeout: Duration?) async throws -> Data {
        let worker = query.query.worker
        guard let connection = connections[worker] else { preconditionFailure("no worker named \(worker)") }
        do {
            return try await connection.send(query.document, timeout: timeout)
        } catch let failure as RequestConnection.Unavailable {
            throw PortUnavailable(failure.description, notConnected: failure.notConnected)
        }
    }
}
