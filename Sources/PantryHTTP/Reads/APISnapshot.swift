import Crypto
import Foundation
import PantryDomain

/// What the API keeps in memory (accounts, revoked tokens, leaderboard standings) at a log
/// position, so that a start reads only the log after it: folding every point ever earned kept the
/// leaderboard at 503 for 35 s at 5M events (issue 35). Like the core's snapshot it holds no
/// personal data: of an account, where its events are and keyed hashes of its username and email
/// (`NameDigest`); the account itself, and a name on the leaderboard, are read back from the
/// sealed events when first needed, so a deleted user's name never lingers in this file. Version
/// 1 kept the same positions but had every registration opened at start: 94 s at a million users.
/// Version 2 kept the accounts as a map and the digests per account, which a start turned into two
/// hash tables; version 3 keeps them sorted (`AccountTable`), to be searched as read, and names a
/// registered user's place by the account's index, which also proves each user placed once.
struct APISnapshot: Equatable {
    /// Where a name on the leaderboard comes from when the snapshot is read back.
    enum NameSource: Int64 {
        /// The user's account (its registration, read back from the log).
        case account = 0
        /// The placeholder of an erased registration, until its deletion.
        case erased = 1
        /// The user id: points for a user never registered.
        case userId = 2
    }

    struct Standing: Equatable {
        var userId: UserID
        var name: NameSource
        var points: Int
        var reachedAt: Int64
    }

    var position: Int64
    /// The command id of the event at `position`: a snapshot taken of another log (a restore, a
    /// copied directory) does not match and is not used.
    var commandIdAtPosition: String
    /// `LoginDigester.keyCheck` of the key the digests were made with.
    var keyCheck: NameDigest
    var accounts: AccountTable
    /// Revoked token ids with their expiry (random ids, nothing personal).
    var revocations: [String: Int64]
    var standings: [Standing]
    /// Who is in which household, with the open invites' ids and expiries.
    var households: [HouseholdID: HouseholdDirectory.Entry]

    private static let magic = Array("PANTRY-API-SNAPSHOT\n".utf8)
    /// 4: the households, after the standings.
    private static let formatVersion: UInt32 = 4

    /// A place named `.account` for a user without one: the snapshot could not be read back.
    struct PlaceWithoutAccount: Error, CustomStringConvertible {
        var userId: UserID
        var description: String { "user \(userId) is placed as an account holder but has no account" }
    }

    /// The file: a header, the body, and a SHA-256 of both.
    func encoded() throws -> Data {
        var w = SnapshotWriter()
        w.bytes.append(contentsOf: Self.magic)
        w.uint32(Self.formatVersion)
        w.int(position)
        w.string(commandIdAtPosition)
        w.digest(keyCheck)
        accounts.write(to: &w)
        w.map(revocations) { $0.int($1) }
        w.int(Int64(standings.count))
        for standing in standings {
            w.int(standing.name.rawValue)
            if standing.name == .account {
                guard let index = accounts.index(of: standing.userId) else { throw PlaceWithoutAccount(userId: standing.userId) }
                w.int(Int64(index))
            } else {
                w.string(standing.userId)
            }
            w.int(Int64(standing.points))
            w.int(standing.reachedAt)
        }
        // Sorted, so that equal models write equal files.
        w.sequence(households.keys.sorted()) { w, id in
            let entry = households[id]!
            w.string(id)
            w.string(entry.owner)
            w.sequence(entry.members) { $0.string($1) }
            w.sequence(entry.invites.keys.sorted()) { w, inviteId in
                w.string(inviteId)
                w.int(entry.invites[inviteId]!)
            }
        }
        w.bytes.append(contentsOf: SHA256.hash(data: w.bytes))
        return Data(w.bytes)
    }

    init(position: Int64, commandIdAtPosition: String, keyCheck: NameDigest, accounts: AccountTable,
         revocations: [String: Int64], standings: [Standing], households: [HouseholdID: HouseholdDirectory.Entry] = [:]) {
        self.position = position
        self.commandIdAtPosition = commandIdAtPosition
        self.keyCheck = keyCheck
        self.accounts = accounts
        self.revocations = revocations
        self.standings = standings
        self.households = households
    }

    /// Throws `SnapshotFailure` for anything but a whole, consistent snapshot of this version.
    init(decoding data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= Self.magic.count + SHA256.byteCount, bytes.starts(with: Self.magic) else {
            throw SnapshotFailure.notASnapshot
        }
        let body = bytes[..<(bytes.count - SHA256.byteCount)]
        guard Array(SHA256.hash(data: body)) == Array(bytes[(bytes.count - SHA256.byteCount)...]) else {
            throw SnapshotFailure.checksumMismatch
        }
        var r = SnapshotReader(bytes: body, offset: Self.magic.count)
        let format = try r.uint32()
        guard format == Self.formatVersion else { throw SnapshotFailure.otherVersion(format: format, holdings: 0) }
        let position = try r.int()
        self.position = position
        commandIdAtPosition = try r.string()
        keyCheck = try r.digest()
        let accounts = try AccountTable(reading: &r, through: position)
        self.accounts = accounts
        revocations = try r.map { try $0.int() }
        // One place per user (an account's marked by index, not hashed), listed best first with no
        // two equal (one event places one user), as `LeaderboardStandings` keeps them.
        var placed = [Bool](repeating: false, count: accounts.count), placedOthers = Set<UserID>()
        var previous: (points: Int64, reachedAt: Int64)?
        standings = try r.array { r in
            guard let name = NameSource(rawValue: try r.int()) else { throw SnapshotFailure.notASnapshot }
            let userId: UserID
            if name == .account {
                let index = try r.int()
                guard (0..<Int64(accounts.count)).contains(index), !placed[Int(index)] else { throw SnapshotFailure.notASnapshot }
                placed[Int(index)] = true
                userId = accounts.userIds[Int(index)]
            } else {
                userId = try r.string()
                guard accounts.index(of: userId) == nil, placedOthers.insert(userId).inserted else { throw SnapshotFailure.notASnapshot }
            }
            let points = try r.int(), reachedAt = try r.int()
            guard points >= 0, 1 <= reachedAt, reachedAt <= position,
                  previous.map({ points < $0.points || (points == $0.points && reachedAt > $0.reachedAt) }) ?? true else {
                throw SnapshotFailure.notASnapshot
            }
            previous = (points, reachedAt)
            return Standing(userId: userId, name: name, points: Int(points), reachedAt: reachedAt)
        }
        var households: [HouseholdID: HouseholdDirectory.Entry] = [:]
        for _ in 0..<(try r.int()) {
            let id = try r.string()
            var entry = HouseholdDirectory.Entry(owner: try r.string(), members: try r.array { try $0.string() })
            for _ in 0..<(try r.int()) { entry.invites[try r.string()] = try r.int() }
            guard !entry.members.isEmpty, households.updateValue(entry, forKey: id) == nil else { throw SnapshotFailure.notASnapshot }
        }
        self.households = households
        guard r.offset == body.count, position > 0 else { throw SnapshotFailure.notASnapshot }
    }
}
