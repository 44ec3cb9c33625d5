import PantryDomain
import PantryWire

/// Submits a command to the core and gives its outcome (accepted, rejected or failed). Throws
/// `PortUnavailable` when the core did not answer: the command may still have been written.
package protocol CommandPort: Sendable {
    func submit(_ envelope: CommandEnvelope) async throws -> CommandOutcome
}
