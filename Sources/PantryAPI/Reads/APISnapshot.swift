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
    var accounts: [UserID: AccountDirectory.Origin]
    /// Revoked token ids with their expiry (random ids, nothing personal).
    var revocations: [String: Int64]
    var standings: [Standing]

    private static let magic = Array("PANTRY-API-SNAPSHOT\n".utf8)
    private static let formatVersion: UInt32 = 2

    /// The file: a header, the body, and a SHA-256 of both.
    func encoded() -> Data {
        var w = SnapshotWriter()
        w.bytes.append(contentsOf: Self.magic)
        w.uint32(Self.formatVersion)
        w.int(position)
        w.string(commandIdAtPosition)
        w.digest(keyCheck)
        w.map(accounts) { w, origin in
            w.int(origin.registeredAt)
            w.int(origin.passwordChangedAt ?? 0)
            w.int(Int64(origin.credentialsGeneration))
            w.digest(origin.username)
            w.digest(origin.email)
        }
        w.map(revocations) { $0.int($1) }
        w.sequence(standings) { w, standing in
            w.string(standing.userId)
            w.int(standing.name.rawValue)
            w.int(Int64(standing.points))
            w.int(standing.reachedAt)
        }
        w.bytes.append(contentsOf: SHA256.hash(data: w.bytes))
        return Data(w.bytes)
    }

    init(position: Int64, commandIdAtPosition: String, keyCheck: NameDigest, accounts: [UserID: AccountDirectory.Origin],
         revocations: [String: Int64], standings: [Standing]) {
        self.position = position
        self.commandIdAtPosition = commandIdAtPosition
        self.keyCheck = keyCheck
        self.accounts = accounts
        self.revocations = revocations
        self.standings = standings
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
        accounts = try r.map { r in
            let registeredAt = try r.int(), passwordChangedAt = try r.int(), generation = try r.int()
            let username = try r.digest(), email = try r.digest()
            // Every position names an event at or before the snapshot's, or it is not one of ours.
            guard (1...position).contains(registeredAt), passwordChangedAt == 0 || (registeredAt...position).contains(passwordChangedAt),
                  generation >= 0 else { throw SnapshotFailure.notASnapshot }
            return AccountDirectory.Origin(registeredAt: registeredAt, passwordChangedAt: passwordChangedAt == 0 ? nil : passwordChangedAt,
                                           credentialsGeneration: Int(generation), username: username, email: email)
        }
        revocations = try r.map { try $0.int() }
        var seen = Set<UserID>(), reached = Set<Int64>()
        standings = try r.array { r in
            let userId = try r.string()
            guard let name = NameSource(rawValue: try r.int()) else { throw SnapshotFailure.notASnapshot }
            let points = try r.int(), reachedAt = try r.int()
            // One place per user, and no two on the same position (one event places one user).
            guard seen.insert(userId).inserted, reached.insert(reachedAt).inserted, points >= 0,
                  (1...position).contains(reachedAt) else {
                throw SnapshotFailure.notASnapshot
            }
            return Standing(userId: userId, name: name, points: Int(points), reachedAt: reachedAt)
        }
        guard r.offset == body.count, position > 0 else { throw SnapshotFailure.notASnapshot }
    }
}

private extension SnapshotWriter {
    mutating func digest(_ digest: NameDigest) {
        int(Int64(bitPattern: digest.high))
        int(Int64(bitPattern: digest.low))
    }
}

private extension SnapshotReader {
    mutating func digest() throws -> NameDigest {
        let high = UInt64(bitPattern: try int())
        return NameDigest(low: UInt64(bitPattern: try int()), high: high)
    }
}
