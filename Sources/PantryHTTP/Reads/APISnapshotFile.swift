import Foundation
import Logging
import PantryDomain
import PantryFiles
import PantryLog
import PantryStandings

/// The API's snapshot (`APISnapshot`) on disk, and how the read models are taken into it and put
/// back from it. Read before the API serves, so that its first leaderboard read is answered;
/// taken on the feed's thread between two batches (so the models agree on one position) every
/// `every` positions, written in the background, and once more at shutdown. A snapshot that is
/// damaged, of another version or of another log is ignored with a log line: the log is the truth.
package final class APISnapshotFile: Sendable {
    let path: String
    /// Positions between two snapshots.
    package let every: Int64
    private let accounts: AccountDirectory
    private let revocations: RevocationList
    private let leaderboard: LeaderboardReadModel
    private let households: HouseholdDirectory
    /// One write at a time; a periodic one asked for meanwhile is skipped.
    private let writer = BackgroundWriter()
    private let logger: Logger

    init(path: String, every: Int64, accounts: AccountDirectory, revocations: RevocationList, leaderboard: LeaderboardReadModel, households: HouseholdDirectory,
         logger: Logger) {
        self.path = path
        self.every = every
        self.accounts = accounts
        self.revocations = revocations
        self.leaderboard = leaderboard
        self.households = households
        self.logger = logger
    }

    // MARK: Reading

    /// Puts the snapshot's state into the read models and returns its position; nil (the models
    /// untouched) when there is none or it cannot be trusted.
    package func restore(from log: any EventLogReader) -> Int64? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let started = ContinuousClock.now
        let snapshot: APISnapshot
        do {
            snapshot = try APISnapshot(decoding: data)
            guard try log.read(positions: [snapshot.position]).first?.metadata.commandId == snapshot.commandIdAtPosition else {
                logger.warning("ignoring an API snapshot of another log; the read models are folded from the log",
                               metadata: ["path": "\(path)", "position": "\(snapshot.position)"])
                return nil
            }
        } catch {
            logger.warning("ignoring the API snapshot; the read models are folded from the log",
                           metadata: ["path": "\(path)", "reason": "\(error)"])
            return nil
        }
        guard snapshot.keyCheck == accounts.digester.keyCheck else {
            logger.warning("ignoring an API snapshot made with another token key; the read models are folded from the log",
                           metadata: ["path": "\(path)"])
            return nil
        }
        households.restore(snapshot.households)
        // No account is opened here: each is read back from the log when first needed.
        accounts.restore(snapshot.accounts)
        for (tokenId, expiresAt) in snapshot.revocations { revocations.revoke(tokenId, expiresAt: expiresAt) }
        leaderboard.restore(LeaderboardStandings(restoring: snapshot.standings.map { standing in
            let name = switch standing.name {
            case .account: LeaderboardStandings.unresolvedName
            case .erased: LeaderboardEntry.erasedName
            case .userId: standing.userId
            }
            return .init(userId: standing.userId, username: name, points: standing.points, reachedAt: standing.reachedAt)
        }), at: snapshot.position)
        logger.info("read models restored from the API snapshot", metadata: [
            "position": "\(snapshot.position)", "accounts": "\(snapshot.accounts.count)", "standings": "\(snapshot.standings.count)",
            "milliseconds": "\((ContinuousClock.now - started) / .milliseconds(1))",
        ])
        return snapshot.position
    }

    // MARK: Writing

    /// The read models at `position`, as taken on the feed's thread (the only one that changes
    /// them) between two batches: copies, and what the feed changes next is copied aside. Merging
    /// the accounts and naming each place is left to `snapshot(of:)`, off that thread.
    package struct Capture: Sendable {
        var position: Int64
        var commandId: String
        var accounts: AccountDirectory.Changes
        var revocations: [String: Int64]
        var standings: [LeaderboardStandings.Standing]
        var households: [HouseholdID: HouseholdDirectory.Entry]
    }

    /// The read models at `position`, their current one: call it on the feed's thread. Nil when
    /// the standings are elsewhere (they never should be), or the log does not answer for the
    /// command id.
    package func capture(at position: Int64, log: any EventLogReader) -> Capture? {
        guard position > 0 else { return nil }
        let commandId: String
        do {
            guard let found = try log.read(positions: [position]).first?.metadata.commandId else { return nil }
            commandId = found
        } catch {
            logger.warning("no API snapshot: the log did not answer", metadata: ["error": "\(error)"])
            return nil
        }
        let (standings, standingAt) = leaderboard.standings
        guard standingAt == position else {
            logger.error("no API snapshot: the standings are not at the feed's position",
                         metadata: ["standings": "\(standingAt)", "feed": "\(position)"])
            return nil
        }
        return Capture(position: position, commandId: commandId, accounts: accounts.changes, revocations: revocations.live(),
                       standings: standings.standings, households: households.all)
    }

    /// The snapshot of `capture`; nil when a name on the leaderboard could not be told from the
    /// log (it never should).
    func snapshot(of capture: Capture) -> APISnapshot? {
        let table = capture.accounts.table
        var kept: [APISnapshot.Standing] = []
        kept.reserveCapacity(capture.standings.count)
        for standing in capture.standings {
            let name: APISnapshot.NameSource
            // A registered user's name is the account's, whether it has been read back yet or not.
            if table.index(of: standing.userId) != nil {
                name = .account
            } else if standing.username == LeaderboardEntry.erasedName {
                name = .erased
            } else if standing.username == standing.userId {
                name = .userId
            } else {
                logger.error("no API snapshot: a name on the leaderboard is not its account's", metadata: ["user": "\(standing.userId)"])
                return nil
            }
            kept.append(.init(userId: standing.userId, name: name, points: standing.points, reachedAt: standing.reachedAt))
        }
        return APISnapshot(position: capture.position, commandIdAtPosition: capture.commandId, keyCheck: accounts.digester.keyCheck,
                           accounts: table, revocations: capture.revocations, standings: kept, households: capture.households)
    }

    /// Makes the snapshot of `capture` and writes it on NIO's pool for blocking work, unless a
    /// write is still going on (the next one will come).
    package func writeInBackground(_ capture: Capture) {
        writer.submit { [self] in writeLogged(capture) }
    }

    /// Waits for a write under way (the process is about to end).
    package func waitForWrites() {
        writer.waitForWrites()
    }

    /// Waits for a write under way, then writes the snapshot of `capture` (at shutdown).
    package func writeNow(_ capture: Capture) {
        waitForWrites()
        writeLogged(capture)
    }

    private func writeLogged(_ capture: Capture) {
        guard let snapshot = snapshot(of: capture) else { return }
        do {
            try write(snapshot)
        } catch {
            logger.error("could not write the API snapshot; the next start folds more of the log", metadata: ["error": "\(error)"])
        }
    }

    /// To a file of this process's own, renamed over the old snapshot once on disk: a crash or a
    /// full disk leaves the previous one, and API processes sharing a directory never mix writes.
    func write(_ snapshot: APISnapshot) throws {
        let started = ContinuousClock.now
        let data = try snapshot.encoded()
        try DurableFile.replace(path, with: data, through: "\(path).\(getpid()).new")
        logger.info("wrote the API snapshot", metadata: [
            "position": "\(snapshot.position)", "bytes": "\(data.count)",
            "milliseconds": "\((ContinuousClock.now - started) / .milliseconds(1))",
        ])
    }
}
