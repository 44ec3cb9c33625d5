import PantryDomain
import Synchronization

/// The accounts (id, name, email, password hash), which log-in needs, and the revoked tokens:
/// fed by `UserRegistered`, `PasswordChanged`, `UserDeleted` and `SessionRevoked` through `APIFeed`.
package final class AccountDirectory: FeedReadModel {
    package struct Account: Sendable, Equatable {
        package var userId: UserID
        package var username: String
        package var email: String
        package var passwordHash: String
        /// How many times the password changed: tokens issued before the last change are refused.
        package var credentialsGeneration: Int
    }

    /// Where an account is in the log: what a snapshot keeps instead of the personal fields, which
    /// are read back from their sealed events (a deleted user's name never lingers in a file).
    struct Origin: Sendable, Equatable {
        var registeredAt: Int64
        /// The latest password change, if any.
        var passwordChangedAt: Int64?
        var credentialsGeneration: Int
    }

    private struct State {
        var byUserId: [UserID: Account] = [:]
        /// Username skeleton (look-alikes are one name) and lower-cased email to user.
        var byName: [String: UserID] = [:]
        var byEmail: [String: UserID] = [:]
        var origins: [UserID: Origin] = [:]

        mutating func forget(_ userId: UserID) {
            origins[userId] = nil
            guard let account = byUserId.removeValue(forKey: userId) else { return }
            byName[Username.skeleton(account.username)] = nil
            byEmail[account.email.lowercased()] = nil
        }
    }

    private let state = Mutex(State())
    private let revocations: RevocationList

    package init(revocations: RevocationList) {
        self.revocations = revocations
    }

    /// By username (any look-alike of it) or, when it has an '@', by email.
    package func account(named login: String) -> Account? {
        state.withLock { state in
            let userId = login.contains("@") ? state.byEmail[login.lowercased()] : state.byName[Username.skeleton(login)]
            return userId.flatMap { state.byUserId[$0] }
        }
    }

    package func account(id userId: UserID) -> Account? {
        state.withLock { $0.byUserId[userId] }
    }

    var eventTypes: Set<EventType> { [.userRegistered, .passwordChanged, .userDeleted, .sessionRevoked] }

    func apply(_ events: [(event: Event, position: Int64)], through position: Int64) {
        state.withLock { state in
            for (event, position) in events {
                switch event {
                case .userRegistered(let e):
                    guard let details = e.account else { continue } // erased: its deletion follows
                    state.byUserId[e.userId] = Account(userId: e.userId, username: details.username, email: details.email,
                                                       passwordHash: details.passwordHash, credentialsGeneration: 0)
                    state.byName[Username.skeleton(details.username)] = e.userId
                    state.byEmail[details.email.lowercased()] = e.userId
                    state.origins[e.userId] = Origin(registeredAt: position, passwordChangedAt: nil, credentialsGeneration: 0)
                case .passwordChanged(let e):
                    guard let hash = e.passwordHash, state.byUserId[e.userId] != nil else { continue }
                    state.byUserId[e.userId]?.passwordHash = hash
                    state.byUserId[e.userId]?.credentialsGeneration += 1
                    state.origins[e.userId]?.passwordChangedAt = position
                    state.origins[e.userId]?.credentialsGeneration += 1
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

    /// Every account's origin, for a snapshot.
    var origins: [UserID: Origin] { state.withLock { $0.origins } }

    /// Puts back the accounts of a snapshot: `events` are the ones its origins name, read back from
    /// the log (in log order, each with its position); the generations are the origins'.
    func restore(_ events: [(event: Event, position: Int64)], origins: [UserID: Origin]) {
        apply(events, through: 0)
        state.withLock { state in
            for (userId, origin) in origins where state.byUserId[userId] != nil {
                state.byUserId[userId]?.credentialsGeneration = origin.credentialsGeneration
                state.origins[userId] = origin
            }
        }
    }
}
