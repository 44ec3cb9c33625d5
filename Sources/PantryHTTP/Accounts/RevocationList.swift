import Foundation
import Synchronization

/// Token ids revoked by logout, with when each token expires. Every API process learns them from
/// the log (`SessionRevoked`, followed by `AccountDirectory`), so a logout on one is honoured by
/// all; a restart reads them back from the log. A token that has expired is refused by its
/// signature check anyway, so its id is forgotten: the list holds only live tokens' ids.
package final class RevocationList: Sendable {
    private struct State {
        var expiries: [String: Int64] = [:]
        /// The size at which expired ids are next swept out: doubling keeps the sweeps' cost per
        /// logout constant.
        var sweepAt = 1_024
    }

    private let state = Mutex(State())

    package init() {}

    /// `now` and `expiresAt` in seconds since 1970.
    package func revoke(_ tokenId: String, expiresAt: Int64, now: Int64 = Int64(Date().timeIntervalSince1970)) {
        guard expiresAt > now else { return }
        state.withLock { state in
            state.expiries[tokenId] = expiresAt
            guard state.expiries.count >= state.sweepAt else { return }
            state.expiries = state.expiries.filter { $0.value > now }
            state.sweepAt = max(1_024, state.expiries.count * 2)
        }
    }

    package func isRevoked(_ tokenId: String) -> Bool {
        state.withLock { $0.expiries[tokenId] != nil }
    }

    /// The revoked ids of tokens not yet expired, with their expiry: what a snapshot keeps.
    func live(now: Int64 = Int64(Date().timeIntervalSince1970)) -> [String: Int64] {
        state.withLock { $0.expiries.filter { $0.value > now } }
    }
}
