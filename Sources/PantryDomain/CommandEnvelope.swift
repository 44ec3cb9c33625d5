/// A command with the identifiers that make it traceable and idempotent.
/// Submitting the same `commandId` again yields the first outcome and appends nothing.
package struct CommandEnvelope: Sendable, Equatable {
    package var commandId: CommandID
    package var correlationId: String?
    package var causationId: String?
    package var command: Command

    package init(commandId: CommandID, correlationId: String? = nil, causationId: String? = nil, command: Command) {
        self.commandId = commandId
        self.correlationId = correlationId
        self.causationId = causationId
        self.command = command
    }
}
