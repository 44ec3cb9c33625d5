import Foundation
import Logging
import PantryBus
import PantryTokens
import ServiceLifecycle
import ZeroMQ

/// What the API's routes are built from (`buildRouter`): its ports to the other processes (the
/// core's command socket, the workers' queries, the fetch worker's recipes, the feed a read waits
/// on for its position) and what it keeps itself (accounts, tokens, the leaderboard, the live
/// streams). `APIServer` makes them from its configuration; a test makes the same against a
/// deployment in its own process and drives the router without a process of the API.
package struct APIParts {
    package let configuration: APIServer.Configuration
    package let logger: Logger
    /// The ZeroMQ context of every port; shut down by whoever made the parts, once their services stopped.
    package let context: ZMQContext

    // The ports.
    let core: CoreConnection
    let queries: WorkerQueries
    let recipes: RecipeSource
    /// The feed: what a read waits on (`?after=`), and what keeps the models below current.
    package let feed: APIFeed

    // What the API keeps.
    let signer: TokenSigner
    let revocations: RevocationList
    let accounts: AccountDirectory
    let leaderboard: LeaderboardReadModel
    let households: HouseholdDirectory
    let live: LiveStreams
    let inviteCodes: InviteCodes
    let resetTokens: PasswordResetTokens
    let counted: CountedIngredientsRead
    let hasher: PasswordHasher
    /// Hashed for a log-in of an unknown user, so that it takes as long as a known one's.
    let decoyHash: String
    let accessLog: AccessLog

    /// The services to run before the HTTP server starts and stop after it: the server's requests
    /// still reach the core, the workers and the fetch worker while it finishes them.
    /// The mail's sender too: what the requests queue is sent while the server finishes them.
    package var servicesBeforeServer: [any Service] {
        [feed, core, queries, recipes, accessLog] + (configuration.passwordResetMail?.services ?? [])
    }
    /// The live streams: listed after the server, so that they end before it waits for them.
    package var servicesAfterServer: [any Service] { [live] }

    /// Makes every part; the feed's read models are restored from the snapshot, if any, before it returns.
    package init(configuration: APIServer.Configuration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        let directoryURL = configuration.dataDirectory
        let tokenKey = try TokenSigner.loadKey(dataDirectory: directoryURL, configured: configuration.tokenKey)
        signer = TokenSigner(key: tokenKey, lifetimeSeconds: configuration.tokenLifetimeSeconds)
        let revocations = RevocationList()
        self.revocations = revocations
        hasher = PasswordHasher(logN: configuration.passwordLogN)
        let hashingStarted = ContinuousClock.now
        decoyHash = try await hasher.hash(RandomIdentifier.make(), for: nil)
        let oneHash = ContinuousClock.now - hashingStarted
        let queued = PasswordHasher.limitQueue(toWait: configuration.hashingQueueWait, oneHash: oneHash)
        logger.info("password hashing", metadata: ["milliseconds": "\(oneHash / .milliseconds(1))", "queue": "\(queued)"])

        let context = try configuration.endpoints.makeContext(logger: logger)
        self.context = context
        // On the core's host the log is read directly (once the core has made it), so gaps
        // are repaired even while the core restarts; elsewhere the core's log service answers,
        // with sealed fields opened, and no key file is needed.
        let endpoints = configuration.endpoints
        // Accounts are read back from the log when first needed, on a reader of their own.
        let registrations = switch configuration.log {
        case .direct(let openLog, let vault): RegistrationReader(openLog: openLog, keys: vault)
        case .service: RegistrationReader(openLog: { RemoteEventStore(context: context, endpoint: endpoints.log) }, keys: nil)
        }
        let accounts = AccountDirectory(revocations: revocations, digester: LoginDigester(tokenKey: tokenKey),
                                        registrations: registrations)
        self.accounts = accounts
        let leaderboard = LeaderboardReadModel(accounts: accounts)
        self.leaderboard = leaderboard
        let households = HouseholdDirectory()
        self.households = households
        inviteCodes = InviteCodes(tokenKey: tokenKey)
        resetTokens = PasswordResetTokens(tokenKey: tokenKey)
        let live = LiveStreams(settings: .init(heartbeat: configuration.liveHeartbeat, maxStreams: max(1, configuration.maxConnections / 2)),
                               leaderboard: leaderboard, households: households, logger: logger)
        self.live = live
        let snapshots = configuration.snapshotPath.map {
            APISnapshotFile(path: $0, every: configuration.snapshotEvery, accounts: accounts, revocations: revocations,
                            leaderboard: leaderboard, households: households, logger: logger)
        }
        switch configuration.log {
        case .direct(let openLog, let vault):
            counted = CountedIngredientsRead(open: openLog)
            feed = try APIFeed(models: [accounts, leaderboard, households], live: live, keys: vault, context: context, feed: endpoints.events,
                               highWaterMark: endpoints.feedHighWaterMark, openLog: openLog, openHeadReader: openLog,
                               snapshots: snapshots, logger: logger)
        case .service:
            let remote = RemoteEventStore(context: context, endpoint: endpoints.log)
            // A socket of its own: a read waits neither for the follower's catch-up nor for a head read.
            let points = RemoteEventStore(context: context, endpoint: endpoints.log, timeout: .seconds(1))
            counted = CountedIngredientsRead(open: { points })
            feed = try APIFeed(models: [accounts, leaderboard, households], live: live, keys: nil, context: context, feed: endpoints.events,
                               highWaterMark: endpoints.feedHighWaterMark, openLog: { remote }, openHeadReader: {
                RemoteEventStore(context: context, endpoint: endpoints.log, timeout: .milliseconds(500))
            }, snapshots: snapshots, logger: logger)
        }
        // Before serving: the first leaderboard read is answered from the snapshot.
        await feed.restoreSnapshot()
        core = try CoreConnection(context: context, endpoint: endpoints.commands, timeout: configuration.coreTimeout, logger: logger)
        queries = try WorkerQueries(context: context, endpoints: endpoints, timeout: configuration.queryTimeout, logger: logger)
        recipes = try RecipeSource(context: context, endpoint: endpoints.fetch,
                                   timeout: configuration.fetchTimeout, reuse: configuration.recipeReuse, logger: logger)
        accessLog = try AccessLog(path: configuration.accessLogPath, logger: logger)
    }
}
