import Curl
import Dispatch
import Foundation
import PantryDomain
import Histogram
import Synchronization
import PantryTokens

/// A run's figures, and its raw histograms for the plot.
package struct LoadRun: Sendable {
    package var result: LoadResult
    package var stats: RunStats
}

package struct LoadError: Error, CustomStringConvertible {
    package var description: String
}

/// Runs a load test against a running deployment: registers and logs in the users, drives the
/// clients, waits for the leaderboard to catch up and checks it against the ledger.
package struct LoadRunner: Sendable {
    /// How long a command is retried (same Idempotency-Key) before its outcome counts as unknown.
    static let retryWindow: UInt64 = 30_000_000_000

    package let configuration: LoadConfiguration
    /// Called on the calling thread with a progress line; `true` when the phase is done.
    let progress: @Sendable (String, Bool) -> Void

    package init(configuration: LoadConfiguration, progress: @escaping @Sendable (String, Bool) -> Void) {
        self.configuration = configuration
        self.progress = progress
    }

    package func run() throws -> LoadRun {
        let client = PantryClient(configuration)
        do {
            let ready = try client.ready()
            guard ready.status == 200 else {
                throw LoadError(description: "\(configuration.url)/ready answered \(ready.status): \(String(decoding: ready.body, as: UTF8.self))")
            }
        } catch let error as CurlError {
            throw LoadError(description: "cannot reach \(configuration.url): \(error)")
        }
        let items = try recipeItems(client)
        let (registration, tokens) = try registerUsers()
        let drive = drive(tokens: tokens, items: items)
        let catchUp = waitForLeaderboard(at: drive.lastAccepted, token: tokens[0])
        let actual = readPoints(tokens: tokens, after: drive.lastAccepted)
        let usernames = (0..<configuration.users).map(configuration.username)
        let check = drive.ledger.check(against: actual, usernames: usernames)
        let cleanedUp = configuration.cleanup ? deleteUsers(tokens: tokens) : nil
        let settings = LoadResult.Settings(
            url: configuration.url, users: configuration.users, clients: configuration.clients,
            durationSeconds: configuration.duration, requests: configuration.requests, rate: configuration.rate,
            mix: configuration.mix, seed: configuration.seed, runPrefix: configuration.runPrefix)
        let lag = LoadResult.Lag(readReplies: .init(drive.stats.readLag), ready: .init(drive.readyLag),
                                 lastAccepted: drive.lastAccepted, catchUpMilliseconds: catchUp)
        var result = LoadResult(settings: settings, machine: .current, registration: registration, seconds: drive.seconds,
                                stats: drive.stats, lag: lag, check: check)
        if let ramp = configuration.ramp {
            result.settings.ramp = ramp
            result.settings.stepSeconds = configuration.stepSeconds
            result.steps = LoadResult.Step.figures(ramp: ramp, stepSeconds: configuration.stepSeconds, overTime: drive.stats.overTime)
        }
        result.settings.pointsPerUser = configuration.pointsPerUser
        result.cleanedUp = cleanedUp
        return LoadRun(result: result, stats: drive.stats)
    }

    // MARK: Recipes

    /// Points are earned only for a recipe's own ingredients, so the workload draws from real
    /// ones: the deployment's random recipes, fetched until a few calls in a row bring nothing
    /// new (the whole catalog, offline), sorted so that a seed makes the same choices again.
    private func recipeItems(_ client: PantryClient) throws -> [Item] {
        var items = Set<Item>()
        var callsWithoutNew = 0
        for _ in 0..<Self.recipeCalls where callsWithoutNew < 3 {
            let response: HTTPResponse
            do { response = try client.randomRecipes(count: 100) } catch { throw LoadError(description: "recipes: \(error)") }
            guard response.status == 200, let page = client.decode(Reply.RandomRecipes.self, response) else {
                throw LoadError(description: "/v1/recipes/random answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
            let before = items.count
            for recipe in page.payload.recipes {
                // One item per ingredient as the points rule counts them (case and plural aside).
                var keys = Set<String>()
                for ingredient in recipe.ingredients where (1...100).contains(ingredient.name.utf8.count)
                    && keys.insert(IngredientName.words(ingredient.name).joined(separator: " ")).inserted {
                    items.insert(Item(recipeId: recipe.id, ingredient: ingredient.name))
                }
            }
            callsWithoutNew = items.count == before ? callsWithoutNew + 1 : 0
        }
        guard items.count >= configuration.clients else {
            throw LoadError(description: "the deployment offers \(items.count) (recipe, ingredient) pairs; the load test needs at least one per client (\(configuration.clients))")
        }
        return items.sorted()
    }

    static let recipeCalls = 30

    // MARK: Users

    private func registerUsers() throws -> (LoadResult.Registration, [String]) {
        let done = Atomic<Int>(0)
        let started = now()
        let users = configuration.users
        let results = onThreads(whileWaiting: {
            let count = done.load(ordering: .relaxed)
            progress(ProgressLine.render(label: "users", done: count, total: users, perSecond: rate(count, since: started)), false)
        }) { thread -> Result<([(Int, String)], Int), LoadError> in
            let client = PantryClient(configuration)
            var tokens: [(Int, String)] = []
            var retries = 0
            for user in stride(from: thread, to: users, by: configuration.clients) {
                do throws(LoadError) {
                    tokens.append((user, try registerAndLogIn(user, client: client, retries: &retries)))
                } catch {
                    return .failure(error)
                }
                done.add(1, ordering: .relaxed)
            }
            return .success((tokens, retries))
        }
        let seconds = elapsed(since: started)
        progress(ProgressLine.render(label: "users", done: users, total: users, perSecond: Double(users) / seconds), true)
        var tokens = Array(repeating: "", count: users)
        var retries = 0
        for result in results {
            let (some, tried) = try result.get()
            for (user, token) in some { tokens[user] = token }
            retries += tried
        }
        return (.init(users: users, seconds: seconds, usersPerSecond: Double(users) / seconds, retries: retries), tokens)
    }

    /// 503: the core or a worker was busy or not caught up; 502 and 504: a load balancer lost the API
    /// process mid-request. Either way the outcome is unknown and asking again (with the same key) is safe.
    static func worthRetrying(_ status: Int) -> Bool { status == 502 || status == 503 || status == 504 }

    /// Registering and logging in are set-up, not measured: they wait out a busy API (its hashing
    /// queue answers 503 at once when full, and 64 clients fill it) for about 40 s before giving up.
    /// Ten tries over 4.5 s let an unlucky client lose every race to those coming back from a success.
    static let setupAttempts = 45

    /// Up to a second between tries, with jitter so that clients refused together do not return together.
    static func backOff(_ attempt: Int) {
        Thread.sleep(forTimeInterval: min(1, 0.1 * Double(attempt)) + Double.random(in: 0..<0.1))
    }

    /// Registers one user and logs them in; retried across transport failures and 503s. A retried
    /// registration that finds its username taken is the first attempt having gone through.
    private func registerAndLogIn(_ user: Int, client: PantryClient, retries: inout Int) throws(LoadError) -> String {
        let username = configuration.username(user)
        for attempt in 0..<Self.setupAttempts {
            if attempt > 0 {
                retries += 1
                Self.backOff(attempt)
            }
            guard let response = try? client.register(username: username, email: "\(username)@load.example.org",
                                                      password: configuration.password) else { continue }
            // The registration answers a session too; a retried one that finds its username taken
            // (the first attempt went through) logs in instead.
            if response.status == 201, let session = client.decode(Reply.Session.self, response) { return session.token }
            if attempt > 0 && response.status == 409 && client.problemCode(response) == "username_taken" {
                return try logIn(user, client: client, retries: &retries)
            }
            try refuseIfLimitedPerAddress(response, doing: "registering \(username)", client: client)
            guard Self.worthRetrying(response.status) else {
                throw LoadError(description: "registering \(username) failed: HTTP \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
        }
        throw LoadError(description: "registering \(username) failed after \(Self.setupAttempts) attempts")
    }

    /// A 429 `rate_limited` while not the operator: the API's per-address limits, which a load
    /// test from one address cannot pass by waiting. Said at once, with the way out.
    private func refuseIfLimitedPerAddress(_ response: HTTPResponse, doing what: String, client: PantryClient) throws(LoadError) {
        guard response.status == 429, configuration.operatorSigner == nil, client.problemCode(response) == "rate_limited" else { return }
        throw LoadError(description: """
            \(what) was refused (HTTP 429 rate_limited): the API limits log-ins and registrations per \
            address. Let the load test read the API's token key (--data DIR holding \(TokenSigner.keyFileName), \
            or PANTRY_TOKEN_KEY) so it registers its users as the operator
            """)
    }

    private func logIn(_ user: Int, client: PantryClient, retries: inout Int) throws(LoadError) -> String {
        let username = configuration.username(user)
        for attempt in 0..<Self.setupAttempts {
            if attempt > 0 {
                retries += 1
                Self.backOff(attempt)
            }
            guard let response = try? client.logIn(username: username, password: configuration.password) else { continue }
            if response.status == 201, let session = client.decode(Reply.Session.self, response) { return session.token }
            try refuseIfLimitedPerAddress(response, doing: "logging in \(username)", client: client)
            // 429: slowed down (a login cannot fail otherwise for our own password).
            guard Self.worthRetrying(response.status) || response.status == 429 else {
                throw LoadError(description: "logging in \(username) failed: HTTP \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
        }
        throw LoadError(description: "logging in \(username) failed after \(Self.setupAttempts) attempts")
    }

    // MARK: Drive

    struct Drive {
        var stats: RunStats
        var ledger: PointsLedger
        var seconds: Double
        var lastAccepted: Int64
        var readyLag: Histogram<UInt64>
    }

    /// The shared state of the drive phase.
    final class Shared: Sendable {
        let lastAccepted = Atomic<Int64>(0)
        let answered = Atomic<Int>(0)
        let finished = Atomic<Bool>(false)

        func accepted(_ position: Int64) {
            var seen = lastAccepted.load(ordering: .relaxed)
            while position > seen {
                let (exchanged, original) = lastAccepted.compareExchange(expected: seen, desired: position, ordering: .relaxed)
                if exchanged { return }
                seen = original
            }
        }
    }

    private func drive(tokens: [String], items: [Item]) -> Drive {
        let shared = Shared()
        let started = now()
        let measuredFrom = started + UInt64(configuration.warmUp * 1e9)
        let deadline = configuration.duration.map { measuredFrom + UInt64($0 * 1e9) }
        let schedule = configuration.schedule
        // Every 200 ms: how far the leaderboard worker trails the head the API has heard of.
        let readyLag = ResultSlot<Histogram<UInt64>>()
        let samplerDone = DispatchSemaphore(value: 0)
        let samplerThread = Thread { [configuration] in
            var lag = RunStats.histogram()
            let client = PantryClient(configuration)
            while !shared.finished.load(ordering: .relaxed) {
                if let response = try? client.ready(), let ready = client.decode(Reply.Ready.self, response),
                   let leaderboard = ready.workers["leaderboard"] {
                    lag.record(UInt64(max(ready.head - leaderboard.position, 0)))
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
            readyLag.value = lag
            samplerDone.signal()
        }
        samplerThread.start()

        let total = configuration.requests
        let results = onThreads(whileWaiting: {
            let answered = shared.answered.load(ordering: .relaxed)
            let seconds = elapsed(since: started)
            let line = if let duration = configuration.duration, total == nil {
                ProgressLine.render(label: "drive", done: Int(seconds), total: Int(duration), perSecond: Double(answered) / seconds, unit: "s")
            } else {
                ProgressLine.render(label: "drive", done: answered, total: total ?? answered, perSecond: Double(answered) / seconds, unit: "requests")
            }
            progress(line, false)
        }) { client in
            driveClient(client, tokens: tokens, items: items, shared: shared, started: started,
                        measuredFrom: measuredFrom, deadline: deadline, schedule: schedule)
        }
        let seconds = elapsed(since: min(measuredFrom, now()))
        shared.finished.store(true, ordering: .relaxed)
        let answered = shared.answered.load(ordering: .relaxed)
        progress(ProgressLine.render(label: "drive", done: answered, total: answered, perSecond: Double(answered) / seconds, unit: "requests"), true)
        samplerDone.wait()

        var stats = RunStats()
        var ledger = PointsLedger(users: configuration.users)
        for (clientStats, clientLedger) in results {
            stats.merge(clientStats)
            ledger.merge(clientLedger)
        }
        return Drive(stats: stats, ledger: ledger, seconds: seconds, lastAccepted: shared.lastAccepted.load(ordering: .relaxed),
                     readyLag: readyLag.value!)
    }

    private func driveClient(_ index: Int, tokens: [String], items: [Item], shared: Shared, started: UInt64,
                             measuredFrom: UInt64, deadline: UInt64?,
                             schedule: Schedule?) -> (RunStats, PointsLedger) {
        let client = PantryClient(configuration)
        var workload = ClientWorkload(seed: configuration.seed, client: index, clients: configuration.clients,
                                      users: configuration.users, items: items, mix: configuration.mix,
                                      keyPrefix: configuration.runPrefix, pointsPerUser: configuration.pointsPerUser)
        var stats = RunStats()
        var ledger = PointsLedger(users: configuration.users)
        let quota = configuration.quota(client: index)
        var sent = 0
        while quota.map({ sent < $0 }) ?? true {
            let due: UInt64
            if let schedule {
                due = started + schedule.due(client: index, index: sent)
                if let deadline, due >= deadline { break }
                let wait = Int64(due) - Int64(now())
                if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
            } else {
                due = now()
                if let deadline, due >= deadline { break }
            }
            let operation = workload.next()
            sent += 1
            let expected: Bool
            switch operation.kind {
            case .increment, .repeat:
                expected = command(operation, token: tokens[operation.user], client: client, shared: shared,
                                   stats: &stats, ledger: &ledger, workload: &workload)
            case .cook:
                expected = cook(operation, token: tokens[operation.user], client: client, shared: shared, stats: &stats)
            case .top10, .myRank:
                expected = read(operation, token: tokens[operation.user], client: client, shared: shared, stats: &stats)
            }
            let answered = now()
            shared.answered.add(1, ordering: .relaxed)
            if expected, due >= measuredFrom {
                stats.record(operation.kind, microseconds: (answered - min(due, answered)) / 1000,
                             atSecond: Int((answered - measuredFrom) / 1_000_000_000))
            }
        }
        return (stats, ledger)
    }

    /// Sends a command until its outcome is known; true when it is the expected one.
    private func command(_ operation: LoadOperation, token: String, client: PantryClient, shared: Shared,
                         stats: inout RunStats, ledger: inout PointsLedger, workload: inout ClientWorkload) -> Bool {
        guard let (response, attempts) = untilKnown(client: client, stats: &stats, { () throws(CurlError) in
            try client.useIngredient(operation.item!, token: token, key: operation.key!)
        }) else { return false }
        switch response.status {
        case 201:
            if attempts > 1, response.headers["Idempotent-Replayed"] == "true" { stats.replayed += 1 }
            if let position = PantryClient.position(in: response.body) { shared.accepted(position) }
            if operation.kind == .repeat {
                stats.doubled += 1
                stats.error("repeat accepted (point doubled)")
                return false
            }
            ledger.earn(user: operation.user)
            workload.accepted(operation)
            return true
        default:
            let code = client.problemCode(response)
            if operation.kind == .repeat, response.status == 409, code == "already_used" { return true }
            stats.error(ErrorKind.http(response.status, code: code))
            return false
        }
    }

    /// Starts cooking the recipe, retried with its key until its outcome is known; true when accepted.
    private func cook(_ operation: LoadOperation, token: String, client: PantryClient, shared: Shared,
                      stats: inout RunStats) -> Bool {
        let recipeId = operation.item!.recipeId, key = operation.key!
        guard let (response, _) = untilKnown(client: client, stats: &stats, { () throws(CurlError) in
            try client.startCooking(recipeId, minutes: LoadConfiguration.cookingMinutes, token: token, key: key + "-cook") }) else { return false }
        guard response.status == 201 else {
            stats.error(ErrorKind.http(response.status, code: client.problemCode(response)))
            return false
        }
        if let position = PantryClient.position(in: response.body) { shared.accepted(position) }
        return true
    }

    /// Sends one request, always with the same Idempotency-Key, until its outcome is known: the
    /// first answer not worth retrying and the attempts it took, or nil once the retry window is
    /// over (the outcome stays unknown).
    private func untilKnown(client: PantryClient, stats: inout RunStats,
                            _ send: () throws(CurlError) -> HTTPResponse) -> (response: HTTPResponse, attempts: Int)? {
        let first = now()
        var attempt = 0
        while true {
            if attempt > 0 {
                guard now() - first < Self.retryWindow else {
                    stats.indefinite += 1
                    return nil
                }
                stats.retries += 1
                Thread.sleep(forTimeInterval: min(0.05 * Double(attempt), 1))
            }
            attempt += 1
            let response: HTTPResponse
            do {
                response = try send()
            } catch {
                stats.error(ErrorKind.transport(error))
                continue
            }
            guard !Self.worthRetrying(response.status) else {
                // The outcome is unknown: the same key makes the retry safe.
                stats.error(ErrorKind.http(response.status, code: client.problemCode(response)))
                continue
            }
            return (response, attempt)
        }
    }

    private func read(_ operation: LoadOperation, token: String, client: PantryClient, shared: Shared,
                      stats: inout RunStats) -> Bool {
        let response: HTTPResponse
        do {
            response = operation.kind == .top10 ? try client.top(10, token: token) : try client.me(token: token)
        } catch {
            stats.error(ErrorKind.transport(error))
            return false
        }
        guard response.status == 200, let position = PantryClient.position(in: response.body) else {
            stats.error(ErrorKind.http(response.status, code: client.problemCode(response)))
            return false
        }
        stats.lag(shared.lastAccepted.load(ordering: .relaxed) - position)
        return true
    }

    // MARK: After the drive

    /// Milliseconds until the leaderboard has applied `position`, asked with `?after=` (which waits
    /// up to 2 s, then answers 503); nil when the leaderboard cannot be read at all.
    private func waitForLeaderboard(at position: Int64, token: String) -> Double? {
        let started = now()
        let client = PantryClient(configuration)
        while elapsed(since: started) < 60 {
            if let response = try? client.top(1, token: token, after: position) {
                if response.status == 200, let seen = PantryClient.position(in: response.body), seen >= position {
                    return elapsed(since: started) * 1000
                }
                guard Self.worthRetrying(response.status) || response.status == 200 else { return nil }
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return nil
    }

    /// Every user's points as the leaderboard has them once it has applied `after`.
    private func readPoints(tokens: [String], after: Int64) -> [Int?] {
        var actual = [Int?](repeating: nil, count: configuration.users)
        for (user, points) in forEachUser(label: "check", { user, client -> Int? in
            for attempt in 0..<5 {
                if attempt > 0 { Thread.sleep(forTimeInterval: 0.2) }
                guard let response = try? client.me(token: tokens[user], after: after) else { continue }
                if response.status == 200, let entry = client.decode(Reply.Me.self, response) { return entry.result.points }
                if !Self.worthRetrying(response.status) { break }
            }
            return nil
        }) { actual[user] = points }
        return actual
    }

    /// `--cleanup`: every test user deletes their account; how many did.
    private func deleteUsers(tokens: [String]) -> Int {
        forEachUser(label: "cleanup") { user, client -> Bool? in
            let response = try? client.deleteAccount(token: tokens[user], password: configuration.password)
            return response?.status == 204 ? true : nil
        }.count
    }

    /// `body` for every user, the users shared out over the clients' threads, with a progress
    /// line; the users it answered for, and its answers.
    private func forEachUser<T: Sendable>(label: String, _ body: @escaping @Sendable (Int, PantryClient) -> T?) -> [(Int, T)] {
        let done = Atomic<Int>(0)
        let started = now()
        let users = configuration.users
        let results = onThreads(whileWaiting: {
            let count = done.load(ordering: .relaxed)
            progress(ProgressLine.render(label: label, done: count, total: users, perSecond: rate(count, since: started)), false)
        }) { thread -> [(Int, T)] in
            let client = PantryClient(configuration)
            var answers: [(Int, T)] = []
            for user in stride(from: thread, to: users, by: configuration.clients) {
                if let answer = body(user, client) { answers.append((user, answer)) }
                done.add(1, ordering: .relaxed)
            }
            return answers
        }
        progress(ProgressLine.render(label: label, done: users, total: users, perSecond: rate(users, since: started)), true)
        return Array(results.joined())
    }

    // MARK: Threads and time

    /// Runs `body` on one thread per client (blocking HTTP calls stay off Swift's cooperative
    /// pool), calling `whileWaiting` on this thread every 200 ms; the results in client order.
    private func onThreads<T: Sendable>(whileWaiting: () -> Void, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let slots = (0..<configuration.clients).map { _ in ResultSlot<T>() }
        let group = DispatchGroup()
        for (index, slot) in slots.enumerated() {
            group.enter()
            let thread = Thread {
                slot.value = body(index)
                group.leave()
            }
            thread.start()
        }
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut { whileWaiting() }
        return slots.map { $0.value! }
    }
}

/// One thread's result, written by that thread before it signals and read after the wait.
final class ResultSlot<T>: @unchecked Sendable {
    var value: T?
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func elapsed(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

func rate(_ count: Int, since start: UInt64) -> Double {
    let seconds = elapsed(since: start)
    return seconds > 0 ? Double(count) / seconds : 0
}
