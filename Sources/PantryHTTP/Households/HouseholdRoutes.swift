import Foundation
import Hummingbird
import PantryDomain
import PantryJSON
import PantryTokens

/// A household: create one, invite with a code, join with it, leave, remove a member, hand it over,
/// and see who is in it. Every route acts for the token's user on their own household, so no route
/// can name another household: a non-member reads nothing of it (404 `not_in_household`).
struct HouseholdRoutes {
    let submitter: CommandSubmitter
    let households: HouseholdDirectory
    let accounts: AccountDirectory
    let feed: any FeedPort
    let codes: InviteCodes

    func register(on routes: RouterGroup<APIRequestContext>) {
        routes.post("v1/households") { request, context in
            try await JSONBody.refuseFields(in: request)
            let user = try context.requireSession()
            let commandId = try submitter.commandId(request, userId: user.userId)
            let outcome = try await submitter.submit(CommandEnvelope(commandId: commandId, command: .createHousehold(CreateHousehold(userId: user.userId))))
            return JSONResponse.make(Created(householdId: Decider.householdId(commandId), position: outcome.positions?.last ?? 0),
                                     status: .created)
        }
        routes.get("v1/me/household") { request, context in
            let user = try context.requireSession()
            try await feed.readyToRead(after: try ReadYourWrites.position(in: request))
            guard let (id, entry) = households.household(of: user.userId) else {
                throw Problem(Rejection(.notInHousehold, "you are not in a household"))
            }
            var members: [Member] = []
            for member in entry.members {
                members.append(Member(userId: member, username: (try? await accounts.account(id: member))?.username, owner: member == entry.owner))
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            // The codes themselves are shown once, to the owner who made them; only ids and expiries here.
            let invites = user.userId == entry.owner
                ? entry.invites.filter { $0.value > now }.map { Invite(inviteId: $0.key, expiresAt: $0.value) }.sorted { $0.expiresAt < $1.expiresAt }
                : nil
            return JSONResponse.make(View(householdId: id, owner: entry.owner, members: members, invites: invites,
                                          position: feed.progress.position))
        }
        routes.post("v1/me/household/invites") { request, context in
            try await JSONBody.refuseFields(in: request)
            let user = try context.requireSession()
            let commandId = try submitter.commandId(request, userId: user.userId)
            let code = codes.code(for: commandId)
            let outcome = try await submitter.submit(CommandEnvelope(commandId: commandId, command: .inviteToHousehold(
                InviteToHousehold(userId: user.userId, codeDigest: InviteCodes.digest(code)))))
            return JSONResponse.make(NewInvite(inviteId: Decider.inviteId(commandId), code: code,
                                               expiresInSeconds: Decider.inviteLifetime / 1000, position: outcome.positions?.last ?? 0),
                                     status: .created)
        }
        routes.delete("v1/me/household/invites/:inviteId") { request, context in
            let user = try context.requireSession()
            let inviteId = try PathParameter.value("inviteId", in: context)
            return try await submitter.respond(to: request, session: user, status: .ok, .revokeHouseholdInvite(
                RevokeHouseholdInvite(userId: user.userId, inviteId: inviteId)))
        }
        routes.post("v1/households/join") { request, context in
            let body = try await JSONBody.decode(JoinRequest.self, from: request)
            let user = try context.requireSession()
            guard let code = InviteCodes.normalized(body.code) else {
                throw Problem(Rejection(.noSuchInvite, "an invite code is \(InviteCodes.length) letters and digits"))
            }
            return try await submitter.respond(to: request, session: user, status: .ok, .joinHousehold(
                JoinHousehold(userId: user.userId, codeDigest: InviteCodes.digest(code))))
        }
        // Yourself: you leave. Another member: the owner removes them.
        routes.delete("v1/me/household/members/:userId") { request, context in
            let user = try context.requireSession()
            let memberId = try PathParameter.value("userId", in: context)
            let command: Command = memberId == user.userId
                ? .leaveHousehold(LeaveHousehold(userId: user.userId))
                : .removeHouseholdMember(RemoveHouseholdMember(userId: user.userId, memberId: memberId))
            return try await submitter.respond(to: request, session: user, status: .ok, command)
        }
        routes.put("v1/me/household/owner") { request, context in
            let body = try await JSONBody.decode(NewOwner.self, from: request)
            let user = try context.requireSession()
            return try await submitter.respond(to: request, session: user, status: .ok, .handOverHousehold(
                HandOverHousehold(userId: user.userId, memberId: body.userId)))
        }
    }

    struct Created: Encodable {
        var householdId: String
        var position: Int64
    }

    struct Member: Encodable {
        var userId: String
        /// Nil while the account cannot be read (a deleted one leaves the household first).
        var username: String?
        var owner: Bool
    }

    struct Invite: Encodable {
        var inviteId: String
        var expiresAt: Int64
    }

    struct View: Encodable {
        var householdId: String
        var owner: String
        var members: [Member]
        /// Open invites, for the owner only.
        var invites: [Invite]?
        var position: Int64
    }

    struct NewInvite: Encodable {
        var inviteId: String
        var code: String
        var expiresInSeconds: Int64
        var position: Int64
    }
}

struct JoinRequest: RequestDocument {
    var code: String
    static let fields = ["code"]
    init(json: borrowing JSONObjectReader) throws { code = try json.string("code") }
}

struct NewOwner: RequestDocument {
    var userId: String
    static let fields = ["userId"]
    init(json: borrowing JSONObjectReader) throws { userId = try json.string("userId") }
}
