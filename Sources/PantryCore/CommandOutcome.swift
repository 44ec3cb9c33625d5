import Foundation
import PantryDomain
import PantryJSON

/// The answer to one command, as printed by `pantry submit` and sent by the core
/// (`schemas/outcome.schema.json`).
public struct CommandOutcome: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        /// Durably in the log at `positions`.
        case accepted
        /// Refused by a rule or by input validation; nothing was written.
        case rejected
        /// The log could not be written; nothing was written and the command may be retried.
        case failed
    }

    public var commandId: CommandID?
    public var status: Status
    public var positions: [Int64]?
    /// True when this answer repeats the first outcome of an already accepted command id.
    public var duplicate: Bool?
    public var code: String?
    public var message: String?

    public static func accepted(_ commandId: CommandID, _ positions: ClosedRange<Int64>, duplicate: Bool = false) -> Self {
        CommandOutcome(commandId: commandId, status: .accepted, positions: Array(positions), duplicate: duplicate ? true : nil)
    }

    public static func rejected(_ commandId: CommandID?, _ rejection: Rejection) -> Self {
        CommandOutcome(commandId: commandId, status: .rejected, code: rejection.code.rawValue, message: rejection.message)
    }

    /// The outcome as one JSON document; written by hand because the core writes one per command.
    public var jsonDocument: Data {
        var w = JSONObjectWriter()
        w.field("commandId", commandId)
        w.field("status", status.rawValue)
        if let positions { w.field("positions", positions) }
        if duplicate == true { w.field("duplicate", true) }
        w.field("code", code)
        w.field("message", message)
        return Data(w.finish())
    }

    public static func failed(_ commandId: CommandID?, _ reason: String) -> Self {
        CommandOutcome(commandId: commandId, status: .failed, code: "storage_error", message: reason)
    }
}
