import Foundation
import PantryDomain
import PantryHTTP
import PantryTestRuntime
import PantryWire
import Testing

/// The routes' answers to what the core's `CommandPort` says when its log cannot be written or it
/// does not answer: states a SQLite log in this process never reaches (the log's PostgreSQL server
/// away, the core gone mid-command), given by a port of the test's own in front of the real core.
extension APIRouteTests {
@Suite struct CommandPortRouteTests {
    /// Passes every command to the real core except a saved recipe, answered as a core whose
    /// PostgreSQL server is away answers (`failed`, `storage_unavailable`, on the wire), and a
    /// grocery, which no core answers.
    struct LogServerAway: CommandPort {
        let core: any CommandPort

        func submit(_ envelope: CommandEnvelope) async throws -> CommandOutcome {
            switch envelope.command {
            case .saveRecipe:
                let wire = #"{"commandId":"\#(envelope.commandId)","status":"failed","code":"storage_unavailable","message":"the log's server cannot be reached"}"#
                return try CommandOutcome(json: Data(wire.utf8))
            case .addGrocery:
                throw PortUnavailable("no answer from ipc:///run/pantry/commands.sock in 5 s")
            default:
                return try await core.submit(envelope)
            }
        }
    }

    @Test func aCommandTheLogCannotTakeIsA503ToRetryAndAnUnansweredOneSaysItMayHaveBeenWritten() async throws {
        try await InProcessDeployment.run(ports: { real in
            var ports = real
            ports.commands = LogServerAway(core: real.commands)
            return ports
        }) { api, deployment in
            let (userId, token) = try await api.registerAndLogIn("olga")
            let saved = try await api.call(.put, "/v1/me/favourites/catalog:shakshuka", token: token)
            let storage = expectProblem(saved, 503, "storage_unavailable")
            #expect(saved.header("Retry-After") == "1")
            #expect((storage["detail"] as? String)?.contains("same Idempotency-Key") == true, "\(storage)")

            let grocery = try await api.call(.post, "/v1/me/groceries", json: ["ingredient": "Salt"], token: token)
            let unanswered = expectProblem(grocery, 503, "core_unavailable")
            #expect((unanswered["detail"] as? String)?.contains("may have been written") == true, "\(unanswered)")
            // The port's reason names the core's socket: for the log, never for the client.
            #expect((unanswered["detail"] as? String)?.contains("ipc:") == false, "\(unanswered)")

            #expect(try deployment.events().filter { userIdInData($0) == userId }.map(\.type) == ["UserRegistered"])
        }
    }
}
}
