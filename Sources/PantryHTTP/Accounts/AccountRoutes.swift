import Foundation
import Hummingbird
import PantryDomain
import PantryJSON
import HTTPTypes
import PantryTokens
import PantryBounded
import Synchronization

/// Register, log in, log out, change the password, close the account, and who am I.
struct AccountRoutes {
    /// How long registration waits for its own event to reach the directory, so that logging in
    /// right after registering works.
    static let registrationVisibility: Duration = .seconds(3)

    let submitter: CommandSubmitter
    let accounts: AccountDirectory
    let feed: any FeedPort
    let hasher: PasswordHasher
    /// For the operator's throwaway users (the load test's password is public): the lowest cost.
    let operatorHasher: PasswordHasher
    let signer: TokenSigner
    let operatorProofs: OperatorProofs
    let revocations: RevocationList
    let throttle: SharedLoginThrottle
    /// Log-ins and registrations per client address, and all of them together.
    let perClient: RateLimiter
    let overall: RateLimiter
    /// Returning clients' device tokens, and their own lane past `overall`.
    let devices: KnownDevices
    /// A real hash checked when the username is unknown, so that a wrong username costs as
    /// long as a wrong password and timing does not reveal which accounts exist.
    let decoyHash: String
    let leaderboard: LeaderboardReadModel
    /// Where reset links are sent; nil when no SMTP server is configured.
    let resetMail: PasswordResetMail?
    let resetTokens: PasswordResetTokens
    /// Clients with a password check waiting or running (`admitted`).
    let checking = ClientsChecking()

    /// Password checks one address may have waiting or running: one for the default budget (a
    /// burst of 20), more where the operator raised it for many people behind one address.
    private var checksPerClient: Int { max(1, Int(perClient.limit.burst / 20)) }

    func register(public routes: Router<APIRequestContext>, authenticated: RouterGroup<APIRequestContext>) {
        routes.post("v1/accounts") { request, context in
            try await admitted(request, context.clientAddress) { byOperator in
                try await registerAccount(request, hasher: byOperator ? operatorHasher : hasher, client: context.clientAddress)
            }
        }
        routes.post("v1/sessions") { request, context in
            try await logIn(request, client: context.clientAddress)
        }
        authenticated.delete("v1/sessions/current") { _, context in
            try await logOut(try context.requireSession())
        }
        authenticated.post("v1/sessions/current/refresh") { _, context in
            try await refresh(try context.requireSession())
        }
        // Both check the password with scrypt: a log-in attempt in all but name, admitted and
        // throttled like one (unthrottled, one address with 40 connections kept the hashing queue
        // full for 12 s, and a stolen token could guess the password without a single 429).
        authenticated.put("v1/me/password") { request, context in
            let session = try context.requireSession()
            return try await admitted(request, context.clientAddress) { _ in
                try await changePassword(request, session: session, client: context.clientAddress)
            }
        }
        authenticated.delete("v1/me") { request, context in
            let session = try context.requireSession()
            return try await admitted(request, context.clientAddress) { _ in
                try await deleteAccount(request, session: session, client: context.clientAddress)
            }
        }
        authenticated.get("v1/me") { request, context in
            try await me(request, session: try context.requireSession())
        }
        registerPasswordResets(on: routes)
    }

    /// A logout is a command: its `SessionRevoked` reaches every API process through the feed.
    /// This one refuses the token at once; its id makes a retried logout harmless. A session the
    /// core knows revoked already (refreshed through another API process a moment ago) is logged
    /// out all the same.
    private func logOut(_ session: SessionClaims) async throws -> Response {
        do {
            _ = try await submitter.submit(CommandEnvelope(
                commandId: "logout-\(session.tokenId)",
                command: .revokeSession(RevokeSession(userId: session.userId, tokenId: session.tokenId, expiresAt: session.expiresAt))))
        } catch let problem as Problem where problem.code == .rejection(.alreadyRevoked) {}
        revocations.revoke(session.tokenId, expiresAt: session.expiresAt)
        return Response(status: .noContent)
    }

    /// A new token for the session's account, asked for before this one expires (the web app asks
    /// an hour ahead: tokens last 24 h, and an expired one lost the cook's session mid-use). This
    /// one is revoked as at log-out, so a refresh does not leave two tokens to steal.
    ///
    /// Single-use: the core decides the revocation (`Decider`, `already_revoked`) and only the
    /// refresh whose revocation it accepted gets a token; six at once of one token gave five live
    /// sessions, across API processes too (issue 45). Each attempt has a command id of its own, or
    /// the core would answer the first's outcome to every one.
    private func refresh(_ session: SessionClaims) async throws -> Response {
        guard let account = try await self.account(id: session.userId) else {
            throw Problem.invalidToken("the account of this token is gone")
        }
        do {
            _ = try await submitter.submit(CommandEnvelope(
                commandId: "refresh-\(session.tokenId)-\(RandomIdentifier.make())",
                command: .revokeSession(RevokeSession(userId: session.userId, tokenId: session.tokenId, expiresAt: session.expiresAt))))
        } catch let problem as Problem where problem.code == .rejection(.alreadyRevoked) {
            revocations.revoke(session.tokenId, expiresAt: session.expiresAt)
            throw Problem.invalidToken("this token was refreshed or logged out already")
        }
        revocations.revoke(session.tokenId, expiresAt: session.expiresAt)
        return newSession(for: account, status: .created)
    }

    private static let operatorField = HTTPField.Name(TokenSigner.operatorHeader)!

    /// The operator's own tool (the load test registering and removing its users), which holds
    /// the token key: not limited per address, as it registers thousands from one. A proof that
    /// is not taken (`OperatorProofs`) refuses the request rather than pass it as anyone's.
    private func isOperator(_ request: Request, _ client: String) throws -> Bool {
        try operatorProofs.check(request.headers[Self.operatorField], client: client)
    }

    /// Runs `work`, which checks or hashes a password, once the client is admitted: within its
    /// budget, and with no more than `checksPerClient` password checks of its own still waiting or
    /// running. One at a time per address (by default) is what keeps the hashing queue fair: 50
    /// addresses flooding log-ins kept it full and 0 of 9 honest log-ins got in. The operator's
    /// tool (`isOperator`) passes and is told so.
    /// A known device (`KnownDevices`, checked by the caller against the account) is admitted by
    /// its own budgets instead of the address's and everyone's.
    func admitted(_ request: Request, _ client: String, device: DeviceClaims? = nil,
                  _ work: (_ byOperator: Bool) async throws -> Response) async throws -> Response {
        if try isOperator(request, client) { return try await work(true) }
        let client = device.map(KnownDevices.key) ?? client
        try await admit(client, known: device != nil)
        guard checking.begin(client, limit: checksPerClient) else {
            let seconds = await Self.holdRefusal(retryAfter: 1)
            throw Problem(.rateLimited,
                          detail: "a password check from this client is still running; retry in \(seconds) s",
                          headers: [.retryAfter: String(seconds)])
        }
        defer { checking.end(client) }
        return try await work(false)
    }

    /// Before any hashing: a flood from one client, or from everywhere, is refused without hashing.
    /// The refusal is held (a tarpit, `tarpit` seconds on average, whatever the wait): a client that
    /// answered a 429 at once sent the next one at once, and 200 Python clients on the same 2 cores
    /// made ~16,000 refusals/s, the cost that took an authenticated read's p99 to 27x its rest
    /// (`ops/bench-abuse`). Held, a client gets at most one refusal per connection per second, and
    /// the connection cap bounds the connections. The wait is a task's sleep, no thread is held; a
    /// full hashing queue (503 busy) is still answered at once.
    func admit(_ client: String, known: Bool = false) async throws {
        let everyone = known ? (devices.overall, "known devices") : (overall, "everyone")
        for (limiter, key, who) in [(perClient, client, "this client"), (everyone.0, "*", everyone.1)] {
            if let wait = limiter.retryAfter(key) {
                let seconds = await Self.holdRefusal(retryAfter: wait)
                throw Problem(.rateLimited, detail: "too many log-ins or registrations from \(who); retry in \(seconds) s",
                              headers: [.retryAfter: String(seconds)])
            }
        }
    }

    /// How long a refusal is held: long enough that a flooding connection costs one request a
    /// second, short enough that an honest client is told what to do within a second. Not the
    /// wait itself: the overall limit's wait is ~10 ms (100/s), which would hold a flood of 200
    /// connections for nothing.
    static let tarpit: Double = 1

    /// Holds a refusal for `tarpit` seconds on average, and answers the whole seconds of
    /// `retryAfter` still left after the hold (a cancelled sleep ends early), for `Retry-After`.
    /// The hold is drawn from half to one and a half times `tarpit`: a flood that starts at once
    /// would otherwise come back at once, every second, 200 requests in the same millisecond (an
    /// authenticated read that met such a wave waited ~15 ms, its p99 under the flood of
    /// ops/bench-abuse).
    private static func holdRefusal(retryAfter: Double) async -> Int {
        let started = ContinuousClock.now
        try? await Task.sleep(for: .milliseconds(Int64(tarpit * Double.random(in: 0.5...1.5) * 1000)))
        let held = ContinuousClock.now - started
        let heldSeconds = Double(held.components.seconds) + Double(held.components.attoseconds) / 1e18
        return max(1, Int((retryAfter - heldSeconds).rounded(.up)))
    }

    struct Registration: RequestDocument {
        var username: String
        var email: String
        var password: String
        static let fields = ["username", "email", "password"]
        init(json: borrowing JSONObjectReader) throws {
            username = try json.string("username")
            email = try json.string("email")
            password = try json.string("password")
        }
    }

    /// The new account, and a session for it, so the app needs no separate log-in.
    struct Registered: Encodable {
        var userId: String
        var username: String
        var position: Int64
        var token: String
        var tokenType = "Bearer"
        var expiresAt: Int64
        /// As a log-in's: the new account's device is known from its first request on.
        var deviceToken: String
    }

    private func registerAccount(_ request: Request, hasher: PasswordHasher, client: String) async throws -> Response {
        let body = try await JSONBody.decode(Registration.self, from: request)
        guard PasswordHasher.passwordLengths.contains(body.password.unicodeScalars.count) else {
            throw Problem(.invalidPassword, detail: "password must be 8-128 characters")
        }
        // Cheap checks first: hashing costs tens of milliseconds. The core re-checks all of them.
        let username: String
        do throws(Rejection) {
            username = try Validate.username(body.username)
            guard Self.hasContractShape(email: body.email) else {
                throw Rejection(.invalidEmail, "email must look like name@example.org: printable ASCII, a dotted domain of letters, digits and '-'")
            }
            _ = try Validate.email(body.email)
        } catch {
            throw Problem(error)
        }
        if accounts.isTaken(username: username) {
            throw Problem(Rejection(.usernameTaken, "username \(username) is taken, or looks like one that is"))
        }
        let userId = RandomIdentifier.make()
        let command = RegisterUser(userId: userId, username: username, email: body.email,
                                   passwordHash: try await hasher.hash(body.password, for: client))
        let outcome = try await submitter.submit(
            CommandEnvelope(commandId: "register-\(userId)", command: .registerUser(command)))
        let position = outcome.positions?.last ?? 0
        _ = await feed.waitUntilApplied(position, timeout: Self.registrationVisibility)
        let (token, claims) = signer.issue(userId: userId, username: username)
        let device = devices.renewed(for: userId, presented: nil)
        return JSONResponse.make(Registered(userId: userId, username: username, position: position, token: token,
                                            expiresAt: claims.expiresAt, deviceToken: device.token),
                                 status: .created, headers: [.location: "/v1/me", .cacheControl: "no-store", .setCookie: device.cookie])
    }

    /// The email shape openapi.yaml gives (`Registration.email`), checked as written: 1-64 printable
    /// ASCII characters but '@', '@', then labels of letters, digits and '-' joined by dots (two at
    /// least), 254 at most. The core's rule (`Validate.email`) is looser (it trims, takes any
    /// non-space character): registration over HTTP keeps to the contract, so that what the schema
    /// refuses is refused (an internationalised domain is written in its ASCII, punycode, form).
    static func hasContractShape(email: String) -> Bool {
        let bytes = Array(email.utf8)
        guard bytes.count <= 254, let at = bytes.firstIndex(of: UInt8(ascii: "@")), (1...64).contains(at),
              bytes[..<at].allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "@") }) else { return false }
        let labels = bytes[(at + 1)...].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && label.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
            }
        }
    }

    /// The account is named by its username or by its email, in `username` or `email`.
    struct Credentials: RequestDocument {
        var username: String?
        var email: String?
        var password: String
        static let fields = ["username", "email", "password"]
        init(json: borrowing JSONObjectReader) throws {
            username = try json.optionalString("username")
            email = try json.optionalString("email")
            password = try json.string("password")
        }

        func login() throws -> String {
            guard let login = username ?? email, (username == nil) != (email == nil), !login.isEmpty else {
                throw Problem.invalidField("give either 'username' or 'email', with 'password'")
            }
            return login
        }
    }

    struct Session: Encodable {
        var token: String
        var tokenType = "Bearer"
        var expiresAt: Int64
        var userId: String
        var username: String
        /// The device token an app sends back (`X-Pantry-Device`) at its next log-in; a browser
        /// keeps it in its cookie.
        var deviceToken: String?
    }

    /// Failures slow down further attempts on the account from the same client only: a stranger
    /// guessing from elsewhere can never lock the owner out (anyone could, with five wrong passwords).
    /// A device token of the account (`KnownDevices`) takes the known devices' lane; one of another
    /// account is no help, and one that failed too often is refused.
    private func logIn(_ request: Request, client: String) async throws -> Response {
        // Without a device token signed here, the body is read only once admitted, as before: a
        // flood of bad bodies is held by the tarpit, not answered at once.
        guard let presented = devices.presented(in: request) else {
            return try await admitted(request, client) { _ in
                let body = try await JSONBody.decode(Credentials.self, from: request)
                return try await logIn(body, login: try body.login(), client: client, device: nil, presented: nil)
            }
        }
        let body = try await JSONBody.decode(Credentials.self, from: request)
        let login = try body.login()
        var known: DeviceClaims?
        if let owner = try await self.account(named: login), owner.userId == presented.userId {
            if let wait = devices.lockout.retryAfter(KnownDevices.key(presented)) {
                let seconds = await Self.holdRefusal(retryAfter: wait)
                throw Problem(.tooManyAttempts, detail: "this device failed its password too often; try again in \(seconds) s",
                              headers: [.retryAfter: String(seconds)])
            }
            known = presented
        }
        return try await admitted(request, client, device: known) { _ in
            try await logIn(body, login: login, client: client, device: known, presented: presented)
        }
    }

    private func logIn(_ body: Credentials, login: String, client: String, device: DeviceClaims?,
                       presented: DeviceClaims?) async throws -> Response {
        let throttleKey = "\(Username.skeleton(login))|\(client)"
        try await refuseWhileThrottled(throttleKey, what: "failed logins for this account")
        // Counted failed until it succeeds, as the account's own throttle counts.
        if let device { try await refuseWhileThrottled(KnownDevices.key(device), in: devices.lockout, what: "failed logins from this device") }
        var account = try await self.account(named: login)
        var valid = try await hasher.verify(body.password, against: account?.passwordHash ?? decoyHash, for: client, first: device != nil)
        if account == nil || !valid {
            // Registered, or given a new password, through another API process a moment ago: this
            // one may not have read it yet. Every failure waits the same, so timing tells nothing.
            await feed.catchUpWithLog(timeout: .seconds(1))
            if let fresher = try await self.account(named: login), fresher.passwordHash != account?.passwordHash {
                account = fresher
                valid = try await hasher.verify(body.password, against: fresher.passwordHash, for: client, first: device != nil)
            }
        }
        guard let account, valid else { throw Problem.invalidCredentials }
        throttle.recordSuccess(throttleKey)
        if let device { devices.lockout.recordSuccess(KnownDevices.key(device)) }
        return newSession(for: account, status: .created, device: devices.renewed(for: account.userId, presented: presented))
    }

    /// The account, read back from the log if it is not open yet: 503 when the log does not answer.
    func account(named login: String) async throws -> AccountDirectory.Account? {
        do { return try await accounts.account(named: login) } catch { throw Self.accountsUnavailable }
    }

    func account(id userId: UserID) async throws -> AccountDirectory.Account? {
        do { return try await accounts.account(id: userId) } catch { throw Self.accountsUnavailable }
    }

    private static let accountsUnavailable = Problem(.starting, detail: "the account cannot be read from the log right now",
                                                     headers: [.retryAfter: "1"])

    /// 429 `too_many_attempts`, held like every refusal, while `key` has failed too often; otherwise
    /// the attempt counts as failed until `recordSuccess`.
    func refuseWhileThrottled(_ key: String, in throttle: SharedLoginThrottle? = nil, what: String) async throws {
        guard let wait = (throttle ?? self.throttle).admit(key) else { return }
        let seconds = await Self.holdRefusal(retryAfter: wait)
        throw Problem(.tooManyAttempts, detail: "too many \(what); try again in \(seconds) s",
                      headers: [.retryAfter: String(seconds)])
    }

    func newSession(for account: AccountDirectory.Account, status: HTTPResponse.Status,
                    device: (token: String, cookie: String)? = nil) -> Response {
        let (token, claims) = signer.issue(userId: account.userId, username: account.username,
                                           credentialsGeneration: account.credentialsGeneration)
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if let device { headers[.setCookie] = device.cookie }
        return JSONResponse.make(Session(token: token, expiresAt: claims.expiresAt, userId: account.userId,
                                         username: account.username, deviceToken: device?.token), status: status,
                                 headers: headers)
    }

    /// The password of the session's own account, checked before anything that cannot be undone.
    /// Failures slow down further checks on the account from every address: only a holder of one
    /// of its tokens can ask, so nobody but a thief is slowed down by them.
    private func requirePassword(_ password: String, of session: SessionClaims, client: String) async throws -> AccountDirectory.Account {
        let throttleKey = "password-check|\(session.userId)"
        try await refuseWhileThrottled(throttleKey, what: "password checks for this account")
        guard let account = try await self.account(id: session.userId),
              try await hasher.verify(password, against: account.passwordHash, for: client) else {
            throw Problem(.wrongPassword, detail: "the password is wrong")
        }
        throttle.recordSuccess(throttleKey)
        return account
    }

    struct PasswordChange: RequestDocument {
        var currentPassword: String
        var newPassword: String
        static let fields = ["currentPassword", "newPassword"]
        init(json: borrowing JSONObjectReader) throws {
            currentPassword = try json.string("currentPassword")
            newPassword = try json.string("newPassword")
        }
    }

    /// A new password ends every other session: the answer carries the one session that stays.
    private func changePassword(_ request: Request, session: SessionClaims, client: String) async throws -> Response {
        let body = try await JSONBody.decode(PasswordChange.self, from: request)
        guard PasswordHasher.passwordLengths.contains(body.newPassword.unicodeScalars.count) else {
            throw Problem(.invalidPassword, detail: "password must be 8-128 characters")
        }
        let account = try await requirePassword(body.currentPassword, of: session, client: client)
        let outcome = try await submitter.submit(CommandEnvelope(
            commandId: "password-\(RandomIdentifier.make())",
            command: .changePassword(ChangePassword(userId: account.userId, passwordHash: try await hasher.hash(body.newPassword, for: client)))))
        guard await feed.waitUntilApplied(outcome.positions?.last ?? 0, timeout: Self.registrationVisibility),
              let changed = try await self.account(id: account.userId) else {
            throw Problem(.notYetVisible, detail: "the password was changed; log in again with it", headers: [.retryAfter: "1"])
        }
        return newSession(for: changed, status: .ok)
    }

    struct AccountDeletion: RequestDocument {
        var password: String
        static let fields = ["password"]
        init(json: borrowing JSONObjectReader) throws { password = try json.string("password") }
    }

    /// Closes the account for good: every read model forgets the user and the core destroys the
    /// user's key, leaving the name, email and password hash in the log unreadable.
    private func deleteAccount(_ request: Request, session: SessionClaims, client: String) async throws -> Response {
        let body = try await JSONBody.decode(AccountDeletion.self, from: request)
        let account = try await requirePassword(body.password, of: session, client: client)
        let outcome = try await submitter.submit(CommandEnvelope(
            commandId: "delete-\(account.userId)", command: .deleteUser(DeleteUser(userId: account.userId))))
        // Every token of the account stops working once the directory has applied the deletion.
        _ = await feed.waitUntilApplied(outcome.positions?.last ?? 0, timeout: Self.registrationVisibility)
        return Response(status: .noContent)
    }

    /// `GET /v1/me`: who the token is for, with points and rank from the leaderboard (null until
    /// the API has read the registration).
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

    private func me(_ request: Request, session: SessionClaims) async throws -> Response {
        try await feed.readyToRead(after: try ReadYourWrites.position(in: request))
        let (entry, position) = leaderboard.entry(session.userId)
        return JSONResponse.make(Me(userId: session.userId, username: session.username, points: entry?.points,
                                    rank: entry?.rank, position: position))
    }
}

/// The clients whose password checks are waiting for the hashing pool or running on it.
final class ClientsChecking: Sendable {
    private let clients = Mutex<[String: Int]>([:])

    /// False when `client` already has `limit`.
    func begin(_ client: String, limit: Int) -> Bool {
        clients.withLock { clients in
            let now = clients[client, default: 0] + 1
            guard now <= limit else { return false }
            clients[client] = now
            return true
        }
    }

    func end(_ client: String) {
        clients.withLock { clients in
            let left = clients[client, default: 1] - 1
            clients[client] = left > 0 ? left : nil
        }
    }
}
