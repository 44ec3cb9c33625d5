import Foundation
import Logging
import PantryBus
import PantryHTTP
import PantryTokens
import ServiceLifecycle
import ZeroMQ

/// What the API's routes are built from (`buildRouter`): its ports to the other processes, made
/// here as ZeroMQ adapters (the core's command socket, the workers' queries, the fetch worker's
/// recipes, the feed a read waits on for its position), and what it keeps itself (`APIState`).
/// `APIServer` makes them from its configuration; a test makes the same against a deployment in
/// its own process and drives the router without a process of the API.
package struct APIParts {
    package let configuration: APIServer.Configuration
    package let logger: Logger
    /// The ZeroMQ context of every port; shut down by whoever made the parts, once their services stopped.
    package let context: ZMQContext

    // The ports' adapters.
    let core: CoreConnection
    let queries: WorkerConnections
    let recipes: FetchConnection
    /// The feed: what a read waits on (`?after=`), and what keeps the state's read models current.
    package let feed: APIFeed

    package let state: APIState

    package var ports: HTTPPorts { HTTPPorts(commands: core, queries: queries, recipes: recipes, feed: feed) }

    /// The services to run before the HTTP server starts and stop after it: the server's requests
    /// still reach the core, the workers and the fetch worker while it finishes them.
    /// The mail's sender too: what the requests queue is sent while the server finishes them.
    package var servicesBeforeServer: [any Service] {
        [feed, core, queries, recipes, state.accessLog] + (configuration.passwordResetMail?.services ?? [])
    }
    /// The live streams: listed after the server, so that they end before it waits for them.
    package var servicesAfterServer: [any Service] { [state.live] }

    /// Makes every part; the feed's read models are restored from the snapshot, if any, before it returns.
    package init(configuration: APIServer.Configuration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        let tokenKey = try TokenSigner.loadKey(dataDirectory: configuration.dataDirectory, configured: configuration.tokenKey)
        let context = try configuration.endpoints.makeContext(logger: logger)
        self.context = context
        // On the core's host the log is read directly (once the core has made it), so gaps
        // are repaired even while the core restarts; elsewhere the core's log service answers,
        // with sealed fields opened, and no key file is needed.
        let endpoints = configuration.endpoints
        let state: APIState
        switch configuration.log {
        case .direct(let openLog, let vault):
            state = try await APIState(tokenKey: tokenKey, settings: configuration.http, registrations: (openLog, vault),
                                       counted: CountedIngredientsRead(open: openLog),
                                       snapshotPath: configuration.snapshotPath, snapshotEvery: configuration.snapshotEvery, logger: logger)
            feed = try APIFeed(models: state.feedModels, live: state.live, keys: vault, context: context, feed: endpoints.events,
                               highWaterMark: endpoints.feedHighWaterMark, openLog: openLog, openHeadReader: openLog,
                               snapshots: state.snapshots, logger: logger)
        case .service:
            let remote = RemoteEventStore(context: context, endpoint: endpoints.log)
            // A socket of its own: a read waits neither for the follower's catch-up nor for a head read.
            let points = RemoteEventStore(context: context, endpoint: endpoints.log, timeout: .seconds(1))
            state = try await APIState(tokenKey: tokenKey, settings: configuration.http,
                                       registrations: ({ RemoteEventStore(context: context, endpoint: endpoints.log) }, nil),
                                       counted: CountedIngredientsRead(open: { points }),
                                       snapshotPath: configuration.snapshotPath, snapshotEvery: configuration.snapshotEvery, logger: logger)
            feed = try APIFeed(models: state.feedModels, live: state.live, keys: nil, context: context, feed: endpoints.events,
                               highWaterMark: endpoints.feedHighWaterMark, openLog: { remote }, openHeadReader: {
                RemoteEventStore(context: context, endpoint: endpoints.log, timeout: .milliseconds(500))
            }, snapshots: state.snapshots, logger: logger)
        }
        self.state = state
        // Before serving: the first leaderboard read is answered from the snapshot.
        await feed.restoreSnapshot()
        core = try CoreConnection(context: context, endpoint: endpoints.commands, timeout: configuration.coreTimeout, logger: logger)
        queries = try WorkerConnections(context: context, endpoints: endpoints, timeout: configuration.queryTimeout, logger: logger)
        recipes = try FetchConnection(context: context, endpoint: endpoints.fetch, timeout: configuration.fetchTimeout, logger: logger)
    }
}

/// The log service's client did not answer: the points read says the core is unavailable.
extension RemoteEventStore.Unavailable: LogServiceUnavailable {}
