import Foundation
import PantryDomain
import PantryJSON

/// A read of the log asked of the log service (`schemas/zeromq.md`, "The log";
/// `bus/log-request.schema.json`): one JSON frame, `{"read": "range" | "types" | "positions" | "head" | "snapshot" | "counted", ...}`.
package enum LogRead: Equatable, Sendable {
    /// Events after `after`, at most `limit`.
    case range(after: Int64, limit: Int)
    /// Events of `types` in `after + 1 ... through`.
    case types(after: Int64, through: Int64, types: Set<String>)
    /// The events at `positions` that exist.
    case positions([Int64])
    /// Only the head position (every answer carries it).
    case head
    /// `bytes` of the newest snapshot of `projection` from `offset` (`SnapshotChunk`); with a
    /// `position` other than 0, of the snapshot at that position only (a download in progress).
    case snapshot(projection: WorkerName, position: Int64, offset: Int64)
    /// The ingredients `userId` earned a point for in `recipeId` (`EarnedIngredients`, one frame).
    case counted(userId: String, recipeId: String)

    /// Positions one `positions` read may name: a reader asks for more in several reads.
    package static let maxPositions = 10_000

    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    private static let fields: [String: Set<String>] = [
        "range": ["read", "after", "limit"], "types": ["read", "after", "through", "types"],
        "positions": ["read", "positions"], "head": ["read"], "snapshot": ["read", "projection", "position", "offset"],
        "counted": ["read", "userId", "recipeId"],
    ]

    package var json: Data {
        var w = JSONObjectWriter()
        switch self {
        case .range(let after, let limit):
            w.field("read", "range"); w.field("after", after); w.field("limit", limit)
        case .types(let after, let through, let types):
            w.field("read", "types"); w.field("after", after); w.field("through", through); w.field("types", types.sorted())
        case .positions(let positions):
            w.field("read", "positions"); w.field("positions", positions)
        case .head:
            w.field("read", "head")
        case .snapshot(let projection, let position, let offset):
            w.field("read", "snapshot"); w.field("projection", projection.rawValue); w.field("position", position)
            w.field("offset", offset)
        case .counted(let userId, let recipeId):
            w.field("read", "counted"); w.field("userId", userId); w.field("recipeId", recipeId)
        }
        return Data(w.finish())
    }

    /// Reads a request as the log service receives it; unknown fields are refused, as a query's are.
    package init(json: Data) throws {
        self = try json.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                let read = try json.string("read")
                guard let allowed = Self.fields[read] else { throw Invalid(description: "unknown read '\(read.prefix(32))'") }
                if let unknown = json.names.first(where: { !allowed.contains($0) }) {
                    throw Invalid(description: "unknown field '\(unknown.prefix(64))' for a \(read) read")
                }
                let after = try json.optionalInt("after").map(Int64.init) ?? 0
                let through = try json.optionalInt("through").map(Int64.init) ?? 0
                guard after >= 0, through >= 0 else { throw Invalid(description: "positions must not be negative") }
                switch read {
                case "range":
                    let limit = try json.int("limit")
                    guard limit > 0 else { throw Invalid(description: "limit must be positive") }
                    return .range(after: try json.int64("after"), limit: limit)
                case "types":
                    guard let types = try json.optionalStrings("types") else { throw Invalid(description: "types are missing") }
                    return .types(after: try json.int64("after"), through: try json.int64("through"), types: Set(types))
                case "positions":
                    guard let positions = try json.optionalIntegers("positions") else { throw Invalid(description: "positions are missing") }
                    return .positions(positions.map(Int64.init))
                case "snapshot":
                    let name = try json.string("projection")
                    guard let projection = WorkerName(rawValue: name) else { throw Invalid(description: "unknown projection '\(name.prefix(32))'") }
                    let position = try json.int64("position"), offset = try json.int64("offset")
                    guard position >= 0, offset >= 0 else { throw Invalid(description: "position and offset must not be negative") }
                    return .snapshot(projection: projection, position: position, offset: offset)
                case "counted":
                    // As a command's fields are checked: an over-long or control-laden id is
                    // refused, not looked up.
                    let userId = try json.string("userId"), recipeId = try json.string("recipeId")
                    do throws(Rejection) {
                        return .counted(userId: try Validate.userId(userId), recipeId: try Validate.recipeId(RecipeID(recipeId)).rawValue)
                    } catch {
                        throw Invalid(description: error.message)
                    }
                default:
                    return .head
                }
            }
        }
    }
}

/// The first frame of the log service's answer (`bus/log-answer.schema.json`); the event documents
/// follow, one frame each. `through` is how far the answer reaches: every event the read asked for
/// up to that position is in it, and the caller asks again after it for the rest.
package struct LogAnswer: Equatable, Sendable {
    package var head: Int64
    package var through: Int64
    package var events: Int

    package init(head: Int64, through: Int64, events: Int) {
        self.head = head; self.through = through; self.events = events
    }

    package var json: Data {
        var w = JSONObjectWriter()
        w.field("head", head); w.field("through", through); w.field("events", events)
        return Data(w.finish())
    }

    /// Throws the refusal (`{"error": {"code", "message"}}`) a log service's answer frame carries
    /// instead of its fields, as `LogRead.Invalid`.
    package static func refusal(in json: borrowing JSONObjectReader) throws {
        if let error = try json.optionalObject("error") {
            let message = try JSONObjectReader.read(error) { "\(try $0.string("code")): \(try $0.string("message"))" }
            throw LogRead.Invalid(description: message)
        }
    }

    /// An answer, or the refusal it carries instead.
    package static func decode(_ frame: Data) throws -> LogAnswer {
        try frame.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                try refusal(in: json)
                return LogAnswer(head: try json.int64("head"), through: try json.int64("through"), events: try json.int("events"))
            }
        }
    }

    /// Why the log service did not answer a read.
    package enum RefusalCode: String, Sendable {
        case badRequest = "bad_request"
        /// The log could not be read.
        case unavailable
        /// No snapshot of that projection (at that position) is kept here.
        case notFound = "not_found"
    }

    package static func refusal(_ message: String, code: RefusalCode = .badRequest) -> Data {
        var error = JSONObjectWriter()
        error.field("code", code.rawValue); error.field("message", message)
        var w = JSONObjectWriter()
        w.field("error", json: error.finish())
        return Data(w.finish())
    }
}
