import PantryBounded
import PantryDomain
import Synchronization

/// The accounts, which log-in needs, and the revoked tokens: fed by `UserRegistered`,
/// `PasswordChanged`, `UserDeleted` and `SessionRevoked` through `APIFeed`.
///
/// Of each account it keeps only where it is in the log (`Origin`) and keyed hashes of its username
/// and email, in the snapshot's `AccountTable` or, when registered since, a `Listing`: the name, email and password hash are read back from the sealed events when the
/// account is first needed (a log-in, `/v1/me`, a name on the leaderboard), and kept in a bounded
/// cache. A start from the snapshot then opens no registration at all (94 s and 964 MiB at a
/// million users when it opened them all), and a deleted user's fields leave memory with the
/// deletion.
package final class AccountDirectory: FeedReadModel {
    package struct Account: Sendable, Equatable {
        package var userId: UserID
        package var username: String
        package var email: String
        package var passwordHash: String
        /// How many times the password changed: tokens issued before the last change are refused.
        package var credentialsGeneration: Int
    }

    /// Where an account is in the log: all that is kept of every account, here and in the API's
    /// snapshot, beside the digests that find it.
    struct Origin: Sendable, Equatable {
        var registeredAt: Int64
        /// The latest password change, if any.
        var passwordChangedAt: Int64?
        var credentialsGeneration: Int
    }

    /// An account registered since the start, with what finds it.
    struct Listing: Sendable, Equatable {
        var origin: Origin
        var username: NameDigest
        var email: NameDigest
    }

    private struct State {
        /// The snapshot's accounts, searched in place and never changed: what changes after the
        /// start is noted beside them (`gone`, `changed`, `recent`), which are small.
        var restored = AccountTable()
        /// Restored accounts deleted (or registered again) since, by index.
        var gone: Set<Int> = []
        /// Restored accounts whose password changed since, by index.
        var changed: [Int: Origin] = [:]
        /// Accounts registered since the start (all of them after a start that folded the log).
        var recent: [UserID: Listing] = [:]
        /// Username and email digests of `recent` to user; they win over the restored ones.
        var recentByLogin: [NameDigest: UserID] = [:]
        /// Accounts read back, least recently used forgotten first.
        var opened = GenerationalCache<UserID, Account>(capacity: AccountDirectory.openedCapacity)

        func origin(of userId: UserID) -> Origin? {
            if let listing = recent[userId] { return listing.origin }
            return restoredIndex(of: userId).map { changed[$0] ?? restored.origins[$0] }
        }

        func restoredIndex(of userId: UserID) -> Int? {
            restored.index(of: userId).flatMap { gone.contains($0) ? nil : $0 }
        }

        func userId(foundBy digest: NameDigest) -> UserID? {
            if let userId = recentByLogin[digest] { return userId }
            return restored.accounts(foundBy: digest).first { !gone.contains($0) }.map { restored.userIds[$0] }
        }

        mutating func forget(_ userId: UserID) {
            opened.remove(userId)
            if let listing = recent.removeValue(forKey: userId) {
                if recentByLogin[listing.username] == userId { recentByLogin[listing.username] = nil }
                if recentByLogin[listing.email] == userId { recentByLogin[listing.email] = nil }
            }
            if let index = restoredIndex(of: userId) {
                gone.insert(index)
                changed[index] = nil
            }
        }

        /// False for a user without an account.
        mutating func changePassword(of userId: UserID, at position: Int64) -> Bool {
            if recent[userId] != nil {
                recent[userId]?.origin.passwordChangedAt = position
                recent[userId]?.origin.credentialsGeneration += 1
                return true
            }
            guard let index = restoredIndex(of: userId) else { return false }
            var origin = changed[index] ?? restored.origins[index]
            origin.passwordChangedAt = position
            origin.credentialsGeneration += 1
            changed[index] = origin
            return true
        }
    }

    /// Accounts kept open: each costs a few hundred bytes.
    static let openedCapacity = 100_000

    private let state = Mutex(State())
    private let revocations: RevocationList
    let digester: LoginDigester
    /// Reads an account's events back; nil where only the feed's accounts are known (tests).
    private let registrations: RegistrationReader?

    init(revocations: RevocationList, digester: LoginDigester, registrations: RegistrationReader?) {
        self.revocations = revocations
        self.digester = digester
        self.registrations = registrations
    }

    /// Whether a username (or a look-alike of it) is taken, without opening any account.
    func isTaken(username: String) -> Bool {
        let digest = digester.digest(username: username)
        return state.withLock { $0.userId(foundBy: digest) != nil }
    }

    /// By username (any look-alike of it) or, when it has an '@', by email; read back from the log
    /// when it is not open yet. Throws when the log does not answer.
    func account(named login: String) async throws -> Account? {
        let digest = digester.digest(login: login)
        guard let userId = state.withLock({ $0.userId(foundBy: digest) }), let account = try await account(id: userId) else { return nil }
        // A digest is a hash: the account must hold the name it was looked up by.
        let matches = login.contains("@") ? account.email.lowercased() == login.lowercased()
            : Username.skeleton(account.username) == Username.skeleton(login)
        return matches ? account : nil
    }

    /// The account, read back from the log when it is not open yet; nil for no account (never
    /// registered, erased or deleted). Throws when the log does not answer.
    func account(id userId: UserID) async throws -> Account? {
        // An account whose password changes while it is read is read again.
        for _ in 0..<3 {
            let (open, origin) = state.withLock { ($0.opened.value(userId), $0.origin(of: userId)) }
            if let open { return open }
            guard let origin, let registrations else { return nil }
            let events = try await registrations.events(at: [origin.registeredAt] + (origin.passwordChangedAt.map { [$0] } ?? []))
            var account: Account?
            for (event, _) in events {
                switch event {
                case .userRegistered(let e) where e.userId == userId:
                    account = e.account.map { Account(userId: userId, username: $0.username, email: $0.email, passwordHash: $0.passwordHash,
                                                      credentialsGeneration: origin.credentialsGeneration) }
                case .passwordChanged(let e) where e.userId == userId:
                    if let hash = e.passwordHash { account?.passwordHash = hash }
                default:
                    return nil // not this user's events: the origin is wrong, so nothing is vouched for
                }
            }
            let kept = state.withLock { state -> Bool in
                // Deleted, or its password changed, while it was read: not kept, not answered.
                guard state.origin(of: userId) == origin else { return false }
                if let account { state.opened.set(userId, account, cost: 1) }
                return true
            }
            if kept { return account }
        }
        return nil
    }

    /// The account's credentials generation, without opening it (every authenticated request asks).
    func credentialsGeneration(of userId: UserID) -> Int? {
        state.withLock { $0.origin(of: userId)?.credentialsGeneration }
    }

    /// Whether the user has an account (registered, neither erased nor deleted).
    func hasAccount(_ userId: UserID) -> Bool {
        state.withLock { $0.origin(of: userId) != nil }
    }

    package var eventTypes: Set<EventType> { [.userRegistered, .passwordChanged, .userDeleted, .sessionRevoked] }

    package func apply(_ events: [(event: Event, position: Int64)], through position: Int64) {
        // Digests outside the lock: a keyed hash each.
        let digests = events.map { one -> (NameDigest, NameDigest)? in
            guard case .userRegistered(let e) = one.event, let details = e.account else { return nil }
            return (digester.digest(username: details.username), digester.digest(email: details.email))
        }
        state.withLock { state in
            for ((event, position), digest) in zip(events, digests) {
                switch event {
                case .userRegistered(let e):
                    guard let details = e.account, let (username, email) = digest else { continue } // erased: its deletion follows
                    state.forget(e.userId)
                    state.recent[e.userId] = Listing(origin: Origin(registeredAt: position, passwordChangedAt: nil, credentialsGeneration: 0),
                                                     username: username, email: email)
                    state.recentByLogin[username] = e.userId
                    state.recentByLogin[email] = e.userId
                    // Just registered: a log-in is likely soon.
                    state.opened.set(e.userId, Account(userId: e.userId, username: details.username, email: details.email,
                                                       passwordHash: details.passwordHash, credentialsGeneration: 0), cost: 1)
                case .passwordChanged(let e):
                    guard let hash = e.passwordHash, state.changePassword(of: e.userId, at: position) else { continue }
                    if var open = state.opened.value(e.userId) {
                        open.passwordHash = hash
                        open.credentialsGeneration += 1
                        state.opened.set(e.userId, open, cost: 1)
                    }
                case .userDeleted(let e):
                    state.forget(e.userId)
                case .sessionRevoked(let e):
                    revocations.revoke(e.tokenId, expiresAt: e.expiresAt)
                default:
                    break
                }
            }
        }
    }

    /// The accounts as they are, in copies that share storage: cheap to take on the feed's thread,
    /// merged into one table (`table`) where the snapshot is written.
    struct Changes: Sendable {
        var restored: AccountTable
        var gone: Set<Int>
        var changed: [Int: Origin]
        var recent: [UserID: Listing]

        /// A pass over the restored table when anything changed.
        var table: AccountTable { restored.merged(gone: gone, changed: changed, added: recent) }
    }

    var changes: Changes {
        state.withLock { Changes(restored: $0.restored, gone: $0.gone, changed: $0.changed, recent: $0.recent) }
    }

    /// Every account, as the next snapshot holds them.
    var table: AccountTable { changes.table }

    /// Puts back the accounts of a snapshot, opening none of them and building no index: the
    /// table is searched as it was read.
    func restore(_ table: AccountTable) {
        state.withLock { state in
            state = State()
            state.restored = table
        }
    }

    /// Whether `userId` is open in memory (a test of forgetting).
    func isOpen(_ userId: UserID) -> Bool {
        state.withLock { $0.opened.value(userId) != nil }
    }
}
