import Foundation
import PantryWire

/// Asks the projection worker a query is for, and gives its answer document as it came
/// (`{"position": P, "result": ...}` or `{"position": P, "error": ...}`, `schemas/zeromq.md`).
/// Throws `PortUnavailable` when the worker did not answer within `timeout` (nil: the port's own).
package protocol QueryPort: Sendable {
    func ask(_ query: QueryRequest, timeout: Duration?) async throws -> Data
}
