import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PantryClient
import Testing

/// PantryClient against a real deployment (`pantry core`, the workers, the fetch worker and the
/// API as processes): the seed flows, and what the hand-written layer promises an app.
@Suite(.deployment, .serialized)
struct PantryClientTests {
    let deployment = Deployment.shared!

    func newClient(_ api: String = "api", store: any SessionStore = MemorySessionStore(),
                   retry: RetryPolicy = .init(), refreshBefore: Duration = .seconds(600)) -> PantryClient {
        PantryClient(.init(baseURL: deployment.url(of: api), sessionStore: store, retryPolicy: retry, refreshBefore: refreshBefore))
    }

    static func name(_ prefix: String) -> String { "\(prefix)\(UInt32.random(in: 0...UInt32.max))" }

    @Test func theSeedFlowsRunThroughTheClient() async throws {
        let client = newClient()
        let username = Self.name("cook")
        try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        try await client.signOut()
        let session = try await client.signIn(email: "\(username)@example.org", password: "correct horse battery")
        #expect(session.username == username)

        // Search by ingredients, open a recipe, autocomplete, keyword search in sections.
        let found = try await client.recipes(withIngredients: ["egg"], number: 3)
        let summary = try #require(found.value2.payload.summaries.first)
        let recipe = try await client.recipe(id: summary.id)
        #expect(recipe.title == summary.title && !recipe.ingredients.isEmpty)
        #expect(try await client.autocomplete("tom").contains { $0.lowercased().hasPrefix("tom") })
        let search = try await client.search("soup", sections: .readyTime)
        #expect((search.value2.sections?.count ?? 0) >= 4)

        // Save it; the favourites and the suggestion show it at once (read-your-writes).
        try await client.send(.saveFavourite(recipeId: recipe.id))
        #expect(try await client.favourites().result.map(\.recipeId) == [recipe.id])
        #expect(try await client.favouriteSuggestion().result != nil)

        // Groceries: an ingredient of the recipe and one by hand, checked, removed.
        try await client.send(.addGrocery(ingredient: recipe.ingredients[0].name, recipeId: recipe.id))
        try await client.send(.addGrocery(ingredient: "Kumquats", amount: 500, unit: "g"))
        try await client.send(.checkGrocery(item: "kumquat", checked: true))
        let groceries = try await client.groceries().result
        #expect(groceries.count == 2 && groceries.contains { $0.item == "kumquat" && $0.checked })
        try await client.send(.removeGrocery(item: "kumquat"))
        #expect(try await client.groceries().result.count == 1)

        // Cart; cooking apart from it (no cart line needed), a point for an owned ingredient, rank; a tip.
        try await client.send(.adjustCart(recipeId: recipe.id, delta: 2))
        try await client.send(.adjustCart(recipeId: recipe.id, delta: -1))
        #expect(try await client.cart().result.lines.map(\.count) == [1])
        try await client.send(.adjustCart(recipeId: recipe.id, delta: -1))
        try await client.send(.startCooking(recipeId: recipe.id, minutes: 20))
        #expect(try await client.cart().result.lines.isEmpty, "starting to cook puts nothing in the cart")
        #expect(try await client.cooking().result.map(\.minutes) == [20])
        try await client.send(.useOwnedIngredient(recipeId: recipe.id, ingredient: recipe.ingredients[0].name))
        #expect(try await client.myRank().points == 1)
        #expect(try await client.countedIngredients(recipeId: recipe.id).result.ingredients.count == 1)
        try await client.send(.writeExperience(recipeId: recipe.id, text: "Less salt next time."))
        #expect(try await client.experiences(recipeId: recipe.id).result.first?.username == username)

        // Browse: the featured recipe and two pages of the feed, none twice.
        _ = try await client.featuredRecipe()
        let first = try await client.feed(count: 5)
        let second = try await client.feed(count: 5, cursor: first.value2.cursor)
        let ids = (first.value2.payload.recipes + second.value2.payload.recipes).map(\.id)
        #expect(ids.count == 10 && Set(ids).count == 10)
    }

    @Test func aProblemArrivesAsTheTypedErrorWithItsCode() async throws {
        let client = newClient()
        let username = Self.name("typed")
        try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        let recipe = try #require(try await client.recipes(withIngredients: ["egg"], number: 1).value2.payload.summaries.first)
        // A point needs the recipe cooking: 409 not_cooking.
        await #expect {
            try await client.send(.useOwnedIngredient(recipeId: recipe.id, ingredient: "egg"))
        } throws: { error in
            guard let error = error as? PantryError, case .problem(let problem) = error else { return false }
            return problem.code == .notCooking && problem.status == 409
        }
        // A wrong password: 401 invalid_credentials, through log-in's oneOf body.
        do {
            try await newClient().signIn(username: username, password: "not the password")
            Issue.record("signed in with a wrong password")
        } catch {
            #expect(error.code == .invalidCredentials)
        }
        // Without a session, a command is not sent at all.
        do {
            try await newClient().send(.adjustCart(recipeId: recipe.id, delta: 1))
            Issue.record("sent without a session")
        } catch {
            guard case .signedOut = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func aTokenThatExpiresMidSessionIsRefreshedAndTheActionCompletes() async throws {
        // A second API process whose tokens last 6 s; the client refreshes those with under 4 s left.
        try await deployment.startAPI(named: "short-tokens", arguments: ["--token-lifetime", "6"])
        defer { deployment.stop("short-tokens") }
        let store = MemorySessionStore()
        let client = newClient("short-tokens", store: store, refreshBefore: .seconds(4))
        let username = Self.name("refresh")
        let first = try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        // A second client sharing the store (an app and its widget), which never refreshes itself.
        let sibling = newClient("short-tokens", store: store, refreshBefore: .zero)
        try await client.send(.addGrocery(ingredient: "Flour"))
        try await Task.sleep(for: .seconds(3))
        // Under 4 s left: this action refreshes first (which ends the first token), then goes through.
        try await client.send(.addGrocery(ingredient: "Sugar"))
        let renewed = try #require(await client.session)
        #expect(renewed.token != first.token && renewed.expiresAt >= first.expiresAt)
        #expect(await sibling.session?.token == first.token)
        // The sibling knows nothing of the client's writes (their positions are the client's own), so
        // the client's read, which waits for them, comes first: else a worker slow to apply "Sugar"
        // answers the sibling with one item (seen with the Swift tests beside it).
        #expect(try await client.groceries().result.count == 2)
        // The sibling's request gets a 401, finds the newer token in the store, and is sent once more.
        #expect(try await sibling.groceries().result.count == 2)
        #expect(await sibling.session?.token == renewed.token)
        try await Task.sleep(for: .seconds(4))
        // The first token has expired by now; the session lives on.
        #expect(try await client.groceries().result.map(\.item).sorted() == ["flour", "sugar"])

        // A client holding only the ended token: the 401's refresh is refused, and says so, typed.
        let stale = PantrySession(token: first.token, expiresAt: renewed.expiresAt, userId: renewed.userId, username: username)
        let ended = newClient("short-tokens", store: MemorySessionStore(stale), refreshBefore: .zero)
        await #expect { try await ended.groceries() } throws: { ($0 as? PantryError)?.code == .invalidToken }
        #expect(await ended.session == nil)
    }

    @Test func aRateLimitedLogInWaitsOutItsRetryAfter() async throws {
        // Log-ins from one address at 0.5 a second, a burst of 5.
        try await deployment.startAPI(named: "limited", environment: ["PANTRY_LOGIN_RATE_PER_CLIENT": "0.5"])
        defer { deployment.stop("limited") }
        let password = "correct horse battery"
        let strict = PantryClient(.init(baseURL: deployment.url(of: "limited"), retryPolicy: .init(maxRetryAfter: .zero)))
        let username = Self.name("limited")
        try await strict.register(username: username, email: "\(username)@example.org", password: password)
        var refusal: Problem?
        for _ in 1...10 where refusal == nil {
            do {
                try await strict.signIn(username: username, password: password)
            } catch {
                guard case .problem(let problem) = error else { throw error }
                refusal = problem
            }
        }
        // A client that may not wait gets the 429, typed, with its Retry-After ...
        let problem = try #require(refusal)
        #expect(problem.code == .rateLimited && problem.status == 429 && (problem.retryAfterSeconds ?? 0) >= 1)
        // ... and one that may (up to 10 s, the default) waits it out and signs in.
        let patient = PantryClient(baseURL: deployment.url(of: "limited"))
        #expect(try await patient.signIn(username: username, password: password).username == username)
    }

    @Test func aReturningDeviceSignsInWhileAFloodHasSpentEveryonesLogIns() async throws {
        // Everyone's log-ins at 0.5 a second, a burst of 5; the known devices have a lane as large.
        try await deployment.startAPI(named: "flooded", environment: ["PANTRY_LOGIN_RATE_OVERALL": "0.5"])
        defer { deployment.stop("flooded") }
        let password = "correct horse battery"
        let store = MemorySessionStore()
        // Without cookies: URLSession.shared would send the device cookie the API sets to every
        // client of the process, the stranger's too.
        func cookieless() -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            return URLSession(configuration: configuration)
        }
        let app = PantryClient(.init(baseURL: deployment.url(of: "flooded"), sessionStore: store, retryPolicy: .init(maxRetryAfter: .zero),
                                     urlSession: cookieless()))
        let username = Self.name("returning")
        try await app.register(username: username, email: "\(username)@example.org", password: password)
        #expect(try store.loadDeviceToken() != nil, "a registration names the device too")
        try await app.signIn(username: username, password: password)
        let device = try #require(try store.loadDeviceToken())
        try await app.signOut()
        #expect(try store.loadDeviceToken() == device, "the device token outlives the session")

        // A flood spends everyone's budget: a client without a token is refused (each is new: one
        // that signed in would hold a token of its own) ...
        var refused = false
        for _ in 1...20 where !refused {
            let stranger = PantryClient(.init(baseURL: deployment.url(of: "flooded"), retryPolicy: .init(maxRetryAfter: .zero),
                                              urlSession: cookieless()))
            do {
                try await stranger.signIn(username: username, password: password)
            } catch {
                guard case .problem(let problem) = error, problem.code == .rateLimited else { throw error }
                refused = true
            }
        }
        #expect(refused)
        // ... while the app, sending its token, signs in four times in a row: everyone's lane
        // refills one log-in in 2 s, so it could not have let more than one of them through.
        for _ in 1...4 {
            #expect(try await app.signIn(username: username, password: password).username == username)
        }
    }

    @Test func aForgottenPasswordIsSetAgainWithTheMailedLink() async throws {
        // A real SMTP server on loopback: aiosmtpd's debugging handler prints every message it takes.
        let smtpPort = try Deployment.freePort()
        let smtp = try Helper(Helper.python, ["-u", "-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Debugging",
                                              "-l", "127.0.0.1:\(smtpPort)"])
        defer { smtp.stop() }
        try await deployment.startAPI(named: "mail", environment: ["PANTRY_SMTP_URL": "smtp://127.0.0.1:\(smtpPort)",
                                                                   "PANTRY_PUBLIC_URL": "http://cook.example"])
        defer { deployment.stop("mail") }
        let client = newClient("mail")
        let username = Self.name("forgot")
        try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        try await client.requestPasswordReset(email: "\(username)@example.org")
        var token: String?
        while token == nil, let line = smtp.readLine() {
            if let link = line.range(of: "http://cook.example/#/reset?token=") { token = String(line[link.upperBound...]) }
        }
        let link = try #require(token)
        let other = newClient("mail")
        #expect(try await other.resetPassword(token: link, newPassword: "a brand new horse").username == username)
        #expect(try await other.me().username == username)
        do {
            try await newClient("mail").resetPassword(token: link, newPassword: "yet another horse")
            Issue.record("a reset link worked twice")
        } catch {
            #expect(error.code == .resetTokenUsed)
        }
    }

    @Test func aCommandRetriedAfterADroppedConnectionIsAppliedOnce() async throws {
        let port = deployment.url().port!
        let proxy = try Helper(Helper.python, [Deployment.repositoryRoot.appendingPathComponent("Tests/Fixtures/dropping_proxy.py").path,
                                               String(port), "POST /v1/me/cart", "1"])
        defer { proxy.stop() }
        let proxyPort = try #require(proxy.readLine()?.split(separator: " ").last.flatMap { Int($0) })
        let client = PantryClient(.init(baseURL: URL(string: "http://127.0.0.1:\(proxyPort)")!,
                                        retryPolicy: .init(initialBackoff: .milliseconds(50))))
        let username = Self.name("retry")
        try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        let recipe = try #require(try await client.recipes(withIngredients: ["egg"], number: 1).value2.payload.summaries.first)

        // The API applies the first send, the proxy loses its answer; the retry carries the same
        // Idempotency-Key and gets the first outcome again.
        let accepted = try await client.send(.adjustCart(recipeId: recipe.id, delta: 1))
        #expect(proxy.readLine() == "dropped POST /v1/me/cart HTTP/1.1")
        #expect(accepted.replayed)
        #expect(try await client.cart().result.lines.map(\.count) == [1])
    }

    @Test func anOfflineQueueOfTwentyIsAppliedOnceEachAndInOrderWhenTheAPIComesBack() async throws {
        let port = try Deployment.freePort()
        try await deployment.startAPI(named: "flaky", port: port)
        let client = PantryClient(.init(baseURL: deployment.url(of: "flaky"),
                                        retryPolicy: .init(maxAttempts: 2, initialBackoff: .milliseconds(20))))
        let username = Self.name("offline")
        try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        deployment.stop("flaky", kill: true)

        let file = deployment.data.appendingPathComponent("queue-\(username).json")
        let queue = try OfflineQueue(file: file, client: client)
        let items = (1...20).map { "Item \($0)" }
        for item in items { try await queue.enqueue(.addGrocery(ingredient: item)) }
        // Nothing can be sent: the API is down. The file keeps all twenty, in order.
        #expect(await queue.flush().isEmpty)
        let reopened = try OfflineQueue(file: file, client: client)
        #expect(await reopened.pending.count == 20)

        let sending = Task { await reopened.sendWhenReachable(maxWait: .milliseconds(200)) }
        try await Task.sleep(for: .milliseconds(500))
        try await deployment.startAPI(named: "flaky", port: port)
        let outcomes = await sending.value
        #expect(outcomes.count == 20)
        let positions = try outcomes.map { try $0.result.get().position }
        #expect(positions == positions.sorted() && Set(positions).count == 20)
        #expect(await reopened.pending.isEmpty)
        // Applied once each, in the order queued (the list keeps the order items were first added).
        let groceries = try await client.groceries().result
        #expect(groceries.map(\.ingredient) == items)
        #expect(groceries.allSatisfy { $0.unmeasuredAdds == 1 })
        deployment.stop("flaky")
    }

    @Test func theLiveStreamResumesAfterTheAPIIsKilledWithNoGapAndNoDuplicate() async throws {
        let port = try Deployment.freePort()
        try await deployment.startAPI(named: "live", port: port)
        defer { deployment.stop("live") }
        let client = PantryClient(.init(baseURL: deployment.url(of: "live"), retryPolicy: .init(initialBackoff: .milliseconds(50))))
        let username = Self.name("live")
        let session = try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
        // The same session through the other API process, for the changes made while "live" is down.
        let elsewhere = PantryClient(baseURL: deployment.url(), sessionStore: MemorySessionStore(session))

        let received = Task {
            var items: [String] = []
            for try await event in client.live() {
                guard case .change(let change) = event, change._type == .groceryAdded, let item = change.item else { continue }
                items.append(item)
                if items.count == 7 { break }
            }
            return items
        }
        try await Task.sleep(for: .milliseconds(500))
        for n in 1...3 { try await client.send(.addGrocery(ingredient: "Before \(n)")) }
        try await Task.sleep(for: .milliseconds(300))
        deployment.stop("live", kill: true)
        for n in 1...2 { try await elsewhere.send(.addGrocery(ingredient: "During \(n)")) }
        try await deployment.startAPI(named: "live", port: port)
        for n in 1...2 { try await client.send(.addGrocery(ingredient: "After \(n)")) }
        let items = try await received.value
        #expect(items == ["before 1", "before 2", "before 3", "during 1", "during 2", "after 1", "after 2"])
    }
}
