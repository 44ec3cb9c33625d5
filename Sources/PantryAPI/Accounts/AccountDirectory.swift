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

    private struct State {
        var byUserId: [UserID: Account] = [:]
        /// Username skeleton (look-alikes are one name) and lower-cased email to user.
        var byName: [String: UserID] = [:]
        var byEmail: [String: UserID] = [:]

        mutating func forget(_ userId: UserID) {
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
            for (event, _) in events {
                switch event {
                case .userRegistered(let e):
                    guard let details = e.account else { continue } // erased: its deletion follows
                    state.byUserId[e.userId] = Account(userId: e.userId, username: details.username, email: details.email,
                                                       passwordHash: details.passwordHash, credentialsGeneration: 0)
                    state.byName[Username.skeleton(details.username)] = e.userId
                    state.byEmail[details.email.lowercased()] = e.userId
                case .passwordChanged(let e):
                    guard let hash = e.passwordHash else { continue }
                    state.byUserId[e.userId]?.passwordHash = hash
                    state.byUserId[e.userId]?.credentialsGeneration += 1
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
}
