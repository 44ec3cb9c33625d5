/// A command with the identifiers that make it traceable and idempotent.
/// Submitting the same `commandId` again yields the first outcome and appends nothing.
public struct CommandEnvelope: Sendable, Equatable {
    public var commandId: CommandID
    public var correlationId: String?
    public var causationId: String?
    public var command: Command

    public init(commandId: CommandID, correlationId: String? = nil, causationId: String? = nil, command: Command) {
        self.commandId = commandId
        self.correlationId = correlationId
        self.causationId = causationId
        self.command = command
    }
}
