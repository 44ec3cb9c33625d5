import Foundation
import GRDB

extension Database.BusyMode {
    /// Retries a locked database every 0.2 ms until `total` has passed. SQLite's own busy timeout
    /// sleeps 1, 2, 5, 10, 15, 20, 25 ms… between tries, so a commit held off for 11 ms by a
    /// checkpoint's RESTART waited 18 ms, and for 19 ms waited 33: a group commit's whole batch
    /// waited that much longer than the lock was held.
    package static func retrying(for total: TimeInterval) -> Self {
        let intervalMicroseconds: useconds_t = 200
        let tries = Int(total * 1_000_000) / Int(intervalMicroseconds)
        return .callback { tried in
            usleep(intervalMicroseconds)
            return tried < tries
        }
    }
}
