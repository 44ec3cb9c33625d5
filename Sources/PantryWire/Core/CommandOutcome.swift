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
        /// The log could not be written (`storage_error`) or reached (`storage_unavailable`); the
        /// command may be retried with the same id.
        case failed
    }

    package var commandId: CommandID?
    package var status: Status
    package var positions: [Int64]?
    /// True when this answer repeats the first outcome of an already accepted command id.
    package var duplicate: Bool?
    package var code: Code?
    package var message: String?

    /// Why a command was not accepted: a rejection's code (`rejected`), or `storage_error` or
    /// `storage_unavailable` (`failed`). `outcome.schema.json` allows any `[a-z0-9_]+`, and the core and its clients are
    /// separate processes, upgraded one at a time: a code a reader does not know is kept as
    /// `other`, for the reader to answer as it answers anything unexpected, rather than refusing
    /// the whole outcome (which a client would take for a core that did not answer, and retry).
    package enum Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        case rejection(Rejection.Code)
        /// The log could not be written; the command may be retried.
        case storageError
        /// The log's server cannot be reached now (its connection lost, the server restarting or
        /// failing over): nothing of the command was written, or, when its connection died between
        /// COMMIT and the answer, it may have been; a retry with the same command id tells which.
        case storageUnavailable
        /// A code this reader does not know.
        case other(String)

        package init(rawValue: String) {
            if let code = Rejection.Code(rawValue: rawValue) {
                self = .rejection(code)
            } else if rawValue == Self.storageErrorName {
                self = .storageError
            } else if rawValue == Self.storageUnavailableName {
                self = .storageUnavailable
            } else {
                self = .other(rawValue)
            }
        }

        package var rawValue: String {
            switch self {
            case .rejection(let code): code.rawValue
            case .storageError: Self.storageErrorName
            case .storageUnavailable: Self.storageUnavailableName
            case .other(let code): code
            }
        }

        package var description: String { rawValue }

        private static let storageErrorName = "storage_error"
        private static let storageUnavailableName = "storage_unavailable"
    }

    package static func accepted(_ commandId: CommandID, _ positions: ClosedRange<Int64>, duplicate: Bool = false) -> Self {
        CommandOutcome(commandId: commandId, status: .accepted, positions: Array(positions), duplicate: duplicate ? true : nil)
    }

    package static func rejected(_ commandId: CommandID?, _ rejection: Rejection) -> Self {
        CommandOutcome(commandId: commandId, status: .rejected, code: .rejection(rejection.code), message: rejection.message)
    }

    /// The outcome as one JSON document; written by hand because the core writes one per command.
    package var jsonDocument: Data {
        var w = JSONObjectWriter()
        w.field("commandId", commandId)
        w.field("status", status.rawValue)
        if let positions { w.field("positions", positions) }
        if duplicate == true { w.field("duplicate", true) }
        w.field("code", code?.rawValue)
        w.field("message", message)
        return Data(w.finish())
    }

    package static func failed(_ commandId: CommandID?, _ reason: String, code: Code = .storageError) -> Self {
        CommandOutcome(commandId: commandId, status: .failed, code: code, message: reason)
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
                    code: try json.optionalString("code").map(Code.init(rawValue:)), message: try json.optionalString("message"))
            }
        }
    }
}
