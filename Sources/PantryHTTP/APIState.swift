import Crypto
import Foundation
import Logging
import PantryDomain
import PantryLog
import PantryTokens
import ServiceLifecycle

/// What the API keeps itself, beside its ports: the token signer and its revocations, the
/// accounts, the leaderboard and the households (read models fed by the feed), the live streams,
/// the codes and reset tokens it signs, the password hasher and the access log.
package struct APIState: Sendable {
    let signer: TokenSigner
    let revocations: RevocationList
    let accounts: AccountDirectory
    let leaderboard: LeaderboardReadModel
    let households: HouseholdDirectory
    package let live: LiveStreams
    let inviteCodes: InviteCodes
    let resetTokens: PasswordResetTokens
    let counted: CountedIngredientsRead
    let hasher: PasswordHasher
    /// Hashed for a log-in of an unknown user, so that it takes as long as a known one's.
    let decoyHash: String
    package let accessLog: AccessLog
    /// Where the read models are kept between runs; nil for nowhere.
    package let snapshots: APISnapshotFile?

    /// The read models the feed keeps current (the live streams apart: they follow it only once loaded).
    package var feedModels: [any FeedReadModel] { [accounts, leaderboard, households] }

    /// `registrations` reads an account's events back from the log, `counted` the points index;
    /// `snapshotPath` (with one snapshot every `snapshotEvery` positions) is where the read models
    /// are kept between runs.
    package init(tokenKey: SymmetricKey, settings: HTTPSettings, registrations: (openLog: @Sendable () throws -> (any EventLogReader)?,
                                                                                 keys: (any PersonalDataVault & Sendable)?),
                 counted: CountedIngredientsRead, snapshotPath: String?, snapshotEvery: Int64, logger: Logger) async throws {
        signer = TokenSigner(key: tokenKey, lifetimeSeconds: settings.tokenLifetimeSeconds)
        let revocations = RevocationList()
        self.revocations = revocations
        hasher = PasswordHasher(logN: settings.passwordLogN)
        let hashingStarted = ContinuousClock.now
        decoyHash = try await hasher.hash(RandomIdentifier.make(), for: nil)
        let oneHash = ContinuousClock.now - hashingStarted
        let queued = PasswordHasher.limitQueue(toWait: settings.hashingQueueWait, oneHash: oneHash)
        logger.info("password hashing", metadata: ["milliseconds": "\(oneHash / .milliseconds(1))", "queue": "\(queued)"])

        // Accounts are read back from the log when first needed, on a reader of their own.
        let accounts = AccountDirectory(revocations: revocations, digester: LoginDigester(tokenKey: tokenKey),
                                        registrations: RegistrationReader(openLog: registrations.openLog, keys: registrations.keys))
        self.accounts = accounts
        let leaderboard = LeaderboardReadModel(accounts: accounts)
        self.leaderboard = leaderboard
        let households = HouseholdDirectory()
        self.households = households
        inviteCodes = InviteCodes(tokenKey: tokenKey)
        resetTokens = PasswordResetTokens(tokenKey: tokenKey)
        live = LiveStreams(settings: .init(heartbeat: settings.liveHeartbeat, maxStreams: max(1, settings.maxConnections / 2)),
                           leaderboard: leaderboard, households: households, logger: logger)
        snapshots = snapshotPath.map {
            APISnapshotFile(path: $0, every: snapshotEvery, accounts: accounts, revocations: revocations,
                            leaderboard: leaderboard, households: households, logger: logger)
        }
        self.counted = counted
        accessLog = try AccessLog(path: settings.accessLogPath, logger: logger)
    }
}
