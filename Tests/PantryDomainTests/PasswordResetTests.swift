import PantryDomain
import Testing

/// A forgotten password: the latest link made for an account sets a new password once, within
/// 30 minutes; the log and the state hold only the token's digest.
@Suite struct PasswordResetTests {
    static let digestA = String(repeating: "a1", count: 32), digestB = String(repeating: "b2", count: 32)

    static func request(_ digest: String, for userId: UserID = "u1") -> Command {
        .requestPasswordReset(RequestPasswordReset(userId: userId, tokenDigest: digest))
    }

    static func reset(_ digest: String, for userId: UserID = "u1", hash: String = phcHash + "new") -> Command {
        .resetPassword(ResetPassword(userId: userId, tokenDigest: digest, passwordHash: hash))
    }

    @Test func aLinkSetsTheNewPasswordOnceAndOnlyItsOwnAccountsPassword() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        let requested = try world.accept(Self.request(Self.digestA))
        #expect(requested == .passwordResetRequested(PasswordResetRequested(
            userId: "u1", tokenDigest: Self.digestA, expiresAt: world.now + Decider.passwordResetLifetime)))
        // Another account's link, or a token that was never made, is not this one.
        #expect(world.reject(Self.reset(Self.digestA, for: "u2")) == .resetTokenInvalid)
        #expect(world.reject(Self.reset(Self.digestB)) == .resetTokenInvalid)
        let changed = try world.accept(Self.reset(Self.digestA))
        #expect(changed == .passwordChanged(PasswordChanged(userId: "u1", passwordHash: phcHash + "new")))
        #expect(world.reject(Self.reset(Self.digestA)) == .resetTokenUsed)
    }

    @Test func aLinkExpiresAfterThirtyMinutes() throws {
        var world = try World.withAlice()
        try world.accept(Self.request(Self.digestA))
        world.now += Decider.passwordResetLifetime - 1
        try world.accept(Self.request(Self.digestB))
        world.now += Decider.passwordResetLifetime
        #expect(world.reject(Self.reset(Self.digestB)) == .resetTokenExpired)
    }

    @Test func aNewLinkOrAChangeOfPasswordEndsTheEarlierLink() throws {
        var world = try World.withAlice()
        try world.accept(Self.request(Self.digestA))
        try world.accept(Self.request(Self.digestB))
        #expect(world.reject(Self.reset(Self.digestA)) == .resetTokenInvalid)
        try world.accept(.changePassword(ChangePassword(userId: "u1", passwordHash: phcHash + "2")))
        #expect(world.reject(Self.reset(Self.digestB)) == .resetTokenUsed)
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        var world = try World.withAlice()
        #expect(world.reject(Self.request("not a digest")) == .invalidField)
        #expect(world.reject(Self.request(Self.digestA.uppercased())) == .invalidField)
        #expect(world.reject(Self.request(Self.digestA, for: "nobody")) == .unknownUser)
        try world.accept(Self.request(Self.digestA))
        #expect(world.reject(Self.reset(Self.digestA, hash: "plain text")) == .invalidPasswordHash)
        #expect(world.reject(Self.reset(Self.digestA, for: "nobody")) == .unknownUser)
    }

    @Test func aDeletedAccountsLinkIsForgottenAndOldRecordsGoAfterADay() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.accept(Self.request(Self.digestA))
        try world.accept(.deleteUser(DeleteUser(userId: "u1")))
        #expect(world.state.passwordResets["u1"] == nil)
        try world.accept(Self.request(Self.digestB, for: "u2"))
        world.now += Decider.passwordResetLifetime + Decider.passwordResetMemory
        try world.accept(register("u3", "carol"))
        try world.accept(Self.request(Self.digestA, for: "u3"))
        #expect(Set(world.state.passwordResets.keys) == ["u3"])
    }

    @Test func replayingTheLogGivesTheSameLinks() throws {
        var world = try World.withAlice()
        try world.accept(Self.request(Self.digestA))
        try world.accept(Self.reset(Self.digestA))
        try world.accept(Self.request(Self.digestB))
        let replayed = Decider.evolve(PantryState(), world.logged)
        #expect(replayed.passwordResets == world.state.passwordResets)
        #expect(PantryState(restoring: world.state.holdings) == world.state)
    }
}
