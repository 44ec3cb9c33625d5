import Foundation
import Hummingbird
import PantryBus
import PantryDomain

/// Register, log in, log out, and who am I.
struct AccountRoutes {
    /// How long registration waits for its own event to reach the directory, so that logging in
    /// right after registering works.
    static let registrationVisibility: Duration = .seconds(3)

    let submitter: CommandSubmitter
    let accounts: AccountDirectory
    let hasher: PasswordHasher
    let signer: TokenSigner
    let revocations: RevocationList
    let throttle: SharedLoginThrottle
    /// A real hash checked when the username is unknown, so that a wrong username costs as
    /// long as a wrong password and timing does not reveal which accounts exist.
    let decoyHash: String
    let queries: WorkerQueries
    let readYourWrites: ReadYourWrites

    func register(public routes: Router<APIRequestContext>, authenticated: RouterGroup<APIRequestContext>) {
        routes.post("v1/accounts") { request, _ in try await registerAccount(request) }
        routes.post("v1/sessions") { request, _ in try await logIn(request) }
        authenticated.delete("v1/sessions/current") { _, context in
            try revocations.revoke(try context.requireSession())
            return Response(status: .noContent)
        }
        authenticated.get("v1/me") { request, context in
            try await me(request, session: try context.requireSession())
        }
    }

    struct Registration: RequestDocument {
        var username: String
        var email: String
        var password: String
        enum CodingKeys: String, CodingKey, CaseIterable { case username, email, password }
    }

    struct Registered: Encodable {
        var userId: String
        var username: String
        var position: Int64
    }

    private func registerAccount(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(Registration.self, from: request)
        guard PasswordHasher.passwordLengths.contains(body.password.count) else {
            throw Problem(.unprocessableContent, code: "invalid_password", detail: "password must be 8-128 characters")
        }
        // Cheap checks first: hashing costs tens of milliseconds. The core re-checks all of them.
        do {
            _ = try Validate.username(body.username)
            _ = try Validate.email(body.email)
        } catch {
            throw Problem(error)
        }
        if accounts.account(named: body.username) != nil {
            throw Problem(Rejection(.usernameTaken, "username \(body.username) is taken"))
        }
        let userId = RandomIdentifier.make()
        let command = RegisterUser(userId: userId, username: body.username, email: body.email,
                                   passwordHash: try await hasher.hash(body.password))
        let outcome = try await submitter.submit(
            CommandEnvelope(commandId: "register-\(userId)", command: .registerUser(command)))
        let position = outcome.positions?.last ?? 0
        _ = await accounts.waitUntilApplied(position, timeout: Self.registrationVisibility)
        return JSONResponse.make(Registered(userId: userId, username: body.username, position: position),
                                 status: .created, headers: [.location: "/v1/me"])
    }

    struct Credentials: RequestDocument {
        var username: String
        var password: String
        enum CodingKeys: String, CodingKey, CaseIterable { case username, password }
    }

    struct Session: Encodable {
        var token: String
        var tokenType = "Bearer"
        var expiresAt: Int64
        var userId: String
        var username: String
    }

    private func logIn(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(Credentials.self, from: request)
        if let wait = throttle.retryAfter(body.username) {
            let seconds = Int(wait.rounded(.up))
            throw Problem(.tooManyRequests, code: "too_many_attempts",
                          detail: "too many failed logins for this account; try again in \(seconds) s",
                          headers: [.retryAfter: String(seconds)])
        }
        let account = accounts.account(named: body.username)
        let valid = await hasher.verify(body.password, against: account?.passwordHash ?? decoyHash)
        guard let account, valid else {
            throttle.recordFailure(body.username)
            throw Problem.invalidCredentials
        }
        throttle.recordSuccess(body.username)
        let (token, claims) = signer.issue(userId: account.userId, username: account.username)
        return JSONResponse.make(Session(token: token, expiresAt: claims.expiresAt, userId: account.userId,
                                         username: account.username), status: .created,
                                 headers: [.cacheControl: "no-store"])
    }

    /// `GET /v1/me`: who the token is for, with points and rank from the leaderboard worker
    /// (null until the worker has applied the registration).
    struct Me: Encodable {
        var userId: String
        var username: String
        var points: Int?
        var rank: Int?
        var position: Int64

        enum CodingKeys: CodingKey { case userId, username, points, rank, position }

        // Explicit nulls: the fields are always present, as the OpenAPI document says.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(userId, forKey: .userId)
            try c.encode(username, forKey: .username)
            try c.encode(points, forKey: .points)
            try c.encode(rank, forKey: .rank)
            try c.encode(position, forKey: .position)
        }
    }

    private struct EntryReply: Decodable {
        struct Entry: Decodable {
            var rank: Int
            var points: Int
        }
        var position: Int64
        var result: Entry
    }

    private func me(_ request: Request, session: SessionClaims) async throws -> Response {
        var query = QueryRequest(query: "entry", userId: session.userId)
        query.after = try await readYourWrites.position(in: request)
        var me = Me(userId: session.userId, username: session.username, position: 0)
        do {
            let entry = try JSONDecoder().decode(EntryReply.self, from: try await queries.ask("leaderboard", query))
            (me.points, me.rank, me.position) = (entry.result.points, entry.result.rank, entry.position)
        } catch let problem as Problem where problem.code == "not_found" {
            // Registered, but the leaderboard has not applied it yet.
        }
        return JSONResponse.make(me)
    }
}
