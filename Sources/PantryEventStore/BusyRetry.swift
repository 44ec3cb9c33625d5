import Foundation
import GRDB

extension Database.BusyMode {
    /// Retries a locked database every `interval` until `total` has passed. SQLite's own busy
    /// timeout sleeps 1, 2, 5, 10, 15, 20, 25 ms… between tries, so a commit held off for 11 ms by a
    /// checkpoint's RESTART waited 18 ms, and for 19 ms waited 33: a group commit's whole batch waited
    /// that much longer than the lock was held.
    public static func retrying(every interval: TimeInterval = 0.000_2, for total: TimeInterval) -> Self {
        let tries = Int(total / interval)
        let sleep = useconds_t(interval * 1_000_000)
        return .callback { tried in
            usleep(sleep)
            return tried < tries
        }
    }
}
