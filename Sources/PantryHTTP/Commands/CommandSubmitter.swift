import Foundation
import HTTPTypes
import Hummingbird
import PantryWire
import PantryDomain
import PantryTokens

/// Sends a command to the core and turns the outcome into an HTTP answer: the log positions when
/// accepted, a problem document otherwise. Counts every outcome for `/metrics`.
struct CommandSubmitter: Sendable {
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    let core: any CommandPort


    /// The accepted outcome's positions, or the problem the outcome maps to.
    func submit(_ envelope: CommandEnvelope) async throws -> CommandOutcome {
        let type = envelope.command.typeName
        let outcome: CommandOutcome
        do {
            outcome = try await core.submit(envelope)
        } catch {
            APIMetrics.command(type: type, outcome: "unavailable", code: "")
            // The reason (it names the core's socket) is for the log, not for the client.
            throw Problem.coreUnavailable("the core did not answer in time, and the command may have been written: retry with the same Idempotency-Key to get its outcome without applying it twice (a retry without a key may apply it again)")
        }
        APIMetrics.command(type: type, outcome: outcome.status.rawValue, code: outcome.code?.rawValue ?? "")
        switch outcome.status {
        case .accepted:
            return outcome
        case .rejected:
            guard case .rejection(let code) = outcome.code else {
                throw Problem(.internalError, detail: "the core answered with an unknown code")
            }
            // Over HTTP the command id is the user's Idempotency-Key: the IETF draft's code for a key
            // sent again with another request.
            if code == .commandIdReused {
                throw Problem(.idempotencyKeyReused, detail: "this Idempotency-Key was already used for a different request")
            }
            throw Problem(Rejection(code, outcome.message ?? code.rawValue))
        case .failed:
            if outcome.code == .storageUnavailable {
                throw Problem(.storageUnavailable, detail: "the log's server cannot be reached now; retry with the same Idempotency-Key",
                              headers: [.retryAfter: "1"])
            }
            throw Problem(.storageError, detail: "the log could not be written; retry with the same Idempotency-Key",
                          headers: [.retryAfter: "1"])
        }
    }

    /// Runs a user's command: the id comes from `Idempotency-Key` (scoped by the user so users
    /// cannot collide), so a retry gets the first answer again and appends nothing.
    func respond(to request: Request, session: SessionClaims, status: HTTPResponse.Status,
                 _ command: Command) async throws -> Response {
        try await respond(commandId: try commandId(request, userId: session.userId), status: status, command)
    }

    func respond(commandId: CommandID, status: HTTPResponse.Status, _ command: Command) async throws -> Response {
        let outcome = try await submit(CommandEnvelope(commandId: commandId, command: command))
        let positions = outcome.positions ?? []
        var headers: HTTPFields = [.contentType: "application/json"]
        if outcome.duplicate == true { headers[Self.replayedHeader] = "true" }
        return Response(status: status, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: Self.acceptedBody(positions))))
    }

    /// `{"position": LAST, "positions": [...]}`, written directly: numbers only, and an encoder
    /// per command cost more than the rest of the answer.
    static func acceptedBody(_ positions: [Int64]) -> String {
        "{\"position\":\(positions.last ?? 0),\"positions\":[\(positions.map(String.init).joined(separator: ","))]}"
    }

    static let idempotencyKeyLengths = 1...100

    func commandId(_ request: Request, userId: String) throws -> CommandID {
        let keys = request.headers[values: Self.idempotencyKeyHeader]
        guard let key = keys.first else { return "api-\(RandomIdentifier.make())" }
        // Visible ASCII only: the core's command ids allow no spaces or control characters.
        guard keys.count == 1, Self.idempotencyKeyLengths.contains(key.utf8.count),
              key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(.invalidIdempotencyKey, detail: "Idempotency-Key must be one header of 1-100 visible ASCII characters")
        }
        return "\(userId):\(key)"
    }
}
