import Foundation
import PantryDomain
import PantryJSON

/// The answer to one command, as printed by `pantry submit` and sent by the core
/// (`schemas/outcome.schema.json`).
package struct CommandOutcome: Sendable, Equatable {
    package enum Status: String, Sendable {
        /// Durably in the log at `positions`.
        case accepted
        /// Refused by a rule or by input validation; nothing was written.
        case rejected
        /// The log could not be written; nothing was written and the command may be retried.
        case failed
    }

    package var commandId: CommandID?
    package var status: Status
    package var positions: [Int64]?
    /// True when this answer repeats the first outcome of an already accepted command id.
    package var duplicate: Bool?
    package var code: String?
    package var message: String?

    package static func accepted(_ commandId: CommandID, _ positions: ClosedRange<Int64>, duplicate: Bool = false) -> Self {
        CommandOutcome(commandId: commandId, status: .accepted, positions: Array(positions), duplicate: duplicate ? true : nil)
    }

    package static func rejected(_ commandId: CommandID?, _ rejection: Rejection) -> Self {
        CommandOutcome(commandId: commandId, status: .rejected, code: rejection.code.rawValue, message: rejection.message)
    }

    /// The outcome as one JSON document; written by hand because the core writes one per command.
    package var jsonDocument: Data {
        var w = JSONObjectWriter()
        w.field("commandId", commandId)
        w.field("status", status.rawValue)
        if let positions { w.field("positions", positions) }
        if duplicate == true { w.field("duplicate", true) }
        w.field("code", code)
        w.field("message", message)
        return Data(w.finish())
    }

    package static func failed(_ commandId: CommandID?, _ reason: String) -> Self {
        CommandOutcome(commandId: commandId, status: .failed, code: "storage_error", message: reason)
    }
}

extension CommandOutcome {
    /// Reads `jsonDocument` back (the clients of the core read one per command they send).
    package init(json: Data) throws {
        self = try json.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                let statusName = try json.string("status")
                guard let status = Status(rawValue: statusName) else {
                    throw JSONReadError.wrongType(field: "status", expected: "accepted, rejected or failed")
                }
                return CommandOutcome(
                    commandId: try json.optionalString("commandId"), status: status,
                    positions: try json.optionalIntegers("positions")?.map(Int64.init), duplicate: try json.optionalBool("duplicate"),
                    code: try json.optionalString("code"), message: try json.optionalString("message"))
            }
        }
    }
}
