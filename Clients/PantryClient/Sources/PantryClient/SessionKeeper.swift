import Foundation

/// The session one `PantryClient` acts with: loaded from its store, refreshed before it expires,
/// and after a 401 replaced once (by a newer token another client sharing the store got, or by a
/// refresh). Refreshes are single-flight: a token can be refreshed once only (the server ends
/// it), so concurrent requests wait for the one refresh instead of each asking.
actor SessionKeeper {
    /// Asks the server for a new session with this token (`POST /v1/sessions/current/refresh`);
    /// nil when the server refused it (the token had ended).
    typealias Refresh = @Sendable (_ token: String) async throws -> PantrySession?

    private let store: any SessionStore
    private let refreshBefore: Duration
    private let refreshSession: Refresh
    private var session: PantrySession?
    private var refreshing: Task<PantrySession?, any Error>?

    init(store: any SessionStore, refreshBefore: Duration, refresh: @escaping Refresh) {
        self.store = store
        self.refreshBefore = refreshBefore
        refreshSession = refresh
        session = try? store.load()
    }

    var current: PantrySession? { session }

    func replace(with session: PantrySession?) throws {
        self.session = session
        try store.save(session)
    }

    /// The token to send now: refreshed first when it expires within `refreshBefore`.
    func token() async throws -> String? {
        guard let held = session else { return nil }
        guard expiresSoon(held) else { return held.token }
        // Before refreshing, a newer token another client put in the store (refreshing this
        // one's would fail: that refresh ended it).
        adoptNewerFromStore()
        guard let session else { return nil }
        guard expiresSoon(session) else { return session.token }
        return try await refreshed(from: session.token)?.token
    }

    private func expiresSoon(_ session: PantrySession) -> Bool {
        Double(session.expiresAt) - Date().timeIntervalSince1970 < Double(refreshBefore.components.seconds)
    }

    /// After a 401 for `rejected`: a token to try once more, or nil (the session has ended).
    func recover(from rejected: String) async throws -> String? {
        adoptNewerFromStore()
        guard let session else { return nil }
        if session.token != rejected { return session.token }
        return try await refreshed(from: rejected)?.token
    }

    /// One refresh at a time; those who ask meanwhile get its result.
    private func refreshed(from token: String) async throws -> PantrySession? {
        if let refreshing { return try await refreshing.value }
        let refreshSession = refreshSession
        let task = Task { try await refreshSession(token) }
        refreshing = task
        defer { refreshing = nil }
        let renewed = try await task.value
        // The old token has ended either way: keep the new one, or none (and forget it in the
        // store too, unless another client has put a newer one there).
        if session?.token == token {
            session = renewed
            if renewed != nil || (try? store.load())?.token == token { try store.save(renewed) }
        }
        return session
    }

    /// Another client sharing the store (an app and its extension) may have refreshed already,
    /// which ended the token this one holds.
    private func adoptNewerFromStore() {
        guard let stored = try? store.load(), stored != session else { return }
        if let session, stored.userId == session.userId, stored.expiresAt < session.expiresAt { return }
        session = stored
    }
}
