/// A forgotten password, reset through a link sent to the account's email. The adapter makes the
/// link's token and mails it; the log and the state hold only its keyed digest (never the token),
/// and the rules here decide whether a token still works: the latest one asked for, once, before
/// it expires. Any change of password (by a link, or by the person) uses the link up.
extension Decider {
    /// A link works for 30 minutes after it is asked for (ms).
    package static let passwordResetLifetime: Int64 = 30 * 60_000
    /// How long a used or expired link is still told apart from an unknown one (ms): after that
    /// its record goes, so that the state keeps only the resets of the last day.
    package static let passwordResetMemory: Int64 = 24 * 3600 * 1000

    static func passwordResetEvents(for command: Command, state: PantryState, at: Int64) throws(Rejection) -> [Event] {
        switch command {
        case .requestPasswordReset(let c):
            let userId = try existingUser(c.userId, state)
            let digest = try Validate.tokenDigest(c.tokenDigest)
            return [.passwordResetRequested(PasswordResetRequested(userId: userId, tokenDigest: digest,
                                                                   expiresAt: at + passwordResetLifetime))]
        case .resetPassword(let c):
            let userId = try existingUser(c.userId, state)
            let digest = try Validate.tokenDigest(c.tokenDigest)
            let hash = try Validate.passwordHash(c.passwordHash)
            guard let pending = state.passwordResets[userId], pending.tokenDigest == digest else {
                throw Rejection(.resetTokenInvalid, "this link is not (or no longer) valid: ask for a new one")
            }
            guard !pending.used else {
                throw Rejection(.resetTokenUsed, "this link was used already, or the password changed since: ask for a new one")
            }
            guard at < pending.expiresAt else {
                throw Rejection(.resetTokenExpired, "this link expired: ask for a new one")
            }
            return [.passwordChanged(PasswordChanged(userId: userId, passwordHash: hash))]
        default:
            preconditionFailure("\(command.typeName) is not a password reset")
        }
    }
}

extension Validate {
    /// A keyed digest of a token: HMAC-SHA256 in 64 lower-case hex digits.
    package static func tokenDigest(_ raw: String) throws(Rejection) -> String {
        guard raw.utf8.count == 64, raw.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw Rejection(.invalidField, "tokenDigest must be an HMAC-SHA256 in 64 lower-case hex digits")
        }
        return raw
    }
}

/// What the state keeps of a person's latest reset link.
package struct PendingPasswordReset: Sendable, Equatable {
    package var tokenDigest: String
    /// ms since 1970.
    package var expiresAt: Int64
    /// Used, or made useless by a change of password after it was asked for.
    package var used: Bool
    package init(tokenDigest: String, expiresAt: Int64, used: Bool) {
        self.tokenDigest = tokenDigest; self.expiresAt = expiresAt; self.used = used
    }
}

/// Asks for a link that sets a new password. The adapter made the token and sends only its keyed
/// digest; a new request replaces the person's earlier link.
package struct RequestPasswordReset: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var tokenDigest: String
    enum Fields: String, CaseIterable { case userId, tokenDigest }
    package init(userId: UserID, tokenDigest: String) { self.userId = userId; self.tokenDigest = tokenDigest }
}

/// Sets a new password with a link's token (its keyed digest), hashed by the adapter.
package struct ResetPassword: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var tokenDigest: String
    package var passwordHash: String
    enum Fields: String, CaseIterable { case userId, tokenDigest, passwordHash }
    package init(userId: UserID, tokenDigest: String, passwordHash: String) {
        self.userId = userId; self.tokenDigest = tokenDigest; self.passwordHash = passwordHash
    }
}

/// A reset link was made for `userId`, good until `expiresAt` (ms since 1970); the log keeps the
/// keyed digest of its token only.
package struct PasswordResetRequested: Sendable, Equatable {
    package var userId: UserID
    package var tokenDigest: String
    package var expiresAt: Int64
    package init(userId: UserID, tokenDigest: String, expiresAt: Int64) {
        self.userId = userId; self.tokenDigest = tokenDigest; self.expiresAt = expiresAt
    }
}

extension PantryState {
    mutating func applyPasswordReset(_ e: PasswordResetRequested, at: Int64) {
        // Forgets the records over for a day (not each user's: a pass over the last day's resets).
        if passwordResets.count > 0 {
            passwordResets = passwordResets.filter { $0.value.expiresAt + Decider.passwordResetMemory > at }
        }
        passwordResets[e.userId] = PendingPasswordReset(tokenDigest: e.tokenDigest, expiresAt: e.expiresAt, used: false)
    }
}
