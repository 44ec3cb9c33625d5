import PantryDomain

/// The accounts of an API snapshot, kept as read: flat columns sorted by user id, and every
/// username and email digest beside the index of its account, sorted by digest. Both are searched
/// in place (binary search), so a start builds no hash table of the accounts: the two dictionaries
/// it built at a million users (2M digests, 1M origins) were over a quarter of its CPU.
struct AccountTable: Equatable, Sendable {
    /// A digest that finds an account, and the account's index.
    struct Login: Comparable, Sendable {
        var digest: NameDigest
        var account: Int32

        static func < (a: Login, b: Login) -> Bool {
            (a.digest.high, a.digest.low, a.account) < (b.digest.high, b.digest.low, b.account)
        }
    }

    /// Sorted, each once.
    private(set) var userIds: [UserID] = []
    /// Parallel to `userIds`.
    private(set) var origins: [AccountDirectory.Origin] = []
    /// Two per account (username, email), sorted.
    private(set) var logins: [Login] = []

    init() {}

    /// The accounts listed by id (a fold's, a test's).
    init(_ listings: [UserID: AccountDirectory.Listing]) {
        self = AccountTable().merged(gone: [], changed: [:], added: listings)
    }

    var count: Int { userIds.count }

    /// The index of `userId`'s account, if it is listed.
    func index(of userId: UserID) -> Int? {
        let index = userIds.partitioningIndex { $0 >= userId }
        return index < userIds.count && userIds[index] == userId ? index : nil
    }

    /// The accounts `digest` finds (one, unless two accounts share an email), by index.
    func accounts(foundBy digest: NameDigest) -> some Sequence<Int> {
        let first = logins.partitioningIndex { $0 >= Login(digest: digest, account: .min) }
        return logins[first...].prefix { $0.digest == digest }.lazy.map { Int($0.account) }
    }

    /// This table without the accounts `gone` (by index), with the origins `changed` since (by
    /// index), and with `added`: what the next snapshot holds. One pass when nothing was added.
    func merged(gone: Set<Int>, changed: [Int: AccountDirectory.Origin], added: [UserID: AccountDirectory.Listing]) -> AccountTable {
        if gone.isEmpty, changed.isEmpty, added.isEmpty { return self }
        let added = added.sorted { $0.key < $1.key }
        var result = AccountTable()
        let count = self.count - gone.count + added.count
        result.userIds.reserveCapacity(count)
        result.origins.reserveCapacity(count)
        var renumbered = [Int32](repeating: -1, count: self.count)
        var addedLogins: [Login] = []
        addedLogins.reserveCapacity(added.count * 2)
        var kept = 0, next = 0
        while kept < self.count || next < added.count {
            if kept < self.count, gone.contains(kept) {
                kept += 1
            } else if next < added.count, kept == self.count || added[next].key < userIds[kept] {
                let (userId, listing) = added[next]
                let index = Int32(result.userIds.count)
                addedLogins += [Login(digest: listing.username, account: index), Login(digest: listing.email, account: index)]
                result.userIds.append(userId)
                result.origins.append(listing.origin)
                next += 1
            } else {
                renumbered[kept] = Int32(result.userIds.count)
                result.userIds.append(userIds[kept])
                result.origins.append(changed[kept] ?? origins[kept])
                kept += 1
            }
        }
        // Renumbering keeps the order, so the kept logins stay sorted: two sorted runs, which the
        // standard sort (a merge sort of runs) joins in one pass.
        result.logins = logins.compactMap { login in
            let index = renumbered[Int(login.account)]
            return index < 0 ? nil : Login(digest: login.digest, account: index)
        }
        if !addedLogins.isEmpty {
            result.logins += addedLogins.sorted()
            result.logins.sort()
        }
        return result
    }

    // MARK: Snapshot bytes

    func write(to w: inout SnapshotWriter) {
        w.int(Int64(count))
        for (userId, origin) in zip(userIds, origins) {
            w.string(userId)
            w.int(origin.registeredAt)
            w.int(origin.passwordChangedAt ?? 0)
            w.int(Int64(origin.credentialsGeneration))
        }
        w.int(Int64(logins.count))
        for login in logins {
            w.digest(login.digest)
            w.int(Int64(login.account))
        }
    }

    /// Reads what `write(to:)` wrote for a snapshot at `position`; throws `SnapshotFailure` unless
    /// it is whole and consistent: ids in order, every position at or before the snapshot's, and
    /// every account found by exactly two digests, in order.
    init(reading r: inout SnapshotReader, through position: Int64) throws {
        let count = try r.int()
        guard count >= 0, count < Int32.max, count <= (r.bytes.count - r.offset) / 32 else { throw SnapshotFailure.truncated }
        userIds.reserveCapacity(Int(count))
        origins.reserveCapacity(Int(count))
        for _ in 0..<count {
            let userId = try r.string()
            let registeredAt = try r.int(), passwordChangedAt = try r.int(), generation = try r.int()
            guard userIds.last.map({ $0 < userId }) ?? true, 1 <= registeredAt, registeredAt <= position,
                  passwordChangedAt == 0 || (registeredAt <= passwordChangedAt && passwordChangedAt <= position),
                  generation >= 0 else { throw SnapshotFailure.notASnapshot }
            userIds.append(userId)
            origins.append(.init(registeredAt: registeredAt, passwordChangedAt: passwordChangedAt == 0 ? nil : passwordChangedAt,
                                 credentialsGeneration: Int(generation)))
        }
        guard try r.int() == count * 2, count * 2 * 24 <= r.bytes.count - r.offset else { throw SnapshotFailure.notASnapshot }
        logins.reserveCapacity(Int(count) * 2)
        var found = [UInt8](repeating: 0, count: Int(count))
        for _ in 0..<(count * 2) {
            let digest = try r.digest(), account = try r.int()
            guard (0..<count).contains(account), found[Int(account)] < 2 else { throw SnapshotFailure.notASnapshot }
            let login = Login(digest: digest, account: Int32(account))
            guard logins.last.map({ $0 < login }) ?? true else { throw SnapshotFailure.notASnapshot }
            found[Int(account)] += 1
            logins.append(login)
        }
        guard found.allSatisfy({ $0 == 2 }) else { throw SnapshotFailure.notASnapshot }
    }
}

extension SnapshotWriter {
    mutating func digest(_ digest: NameDigest) {
        int(Int64(bitPattern: digest.high))
        int(Int64(bitPattern: digest.low))
    }
}

extension SnapshotReader {
    mutating func digest() throws -> NameDigest {
        let high = UInt64(bitPattern: try int())
        return NameDigest(low: UInt64(bitPattern: try int()), high: high)
    }
}

private extension RandomAccessCollection {
    /// The first index whose element is `inside`, where every element that is comes after every one
    /// that is not (binary search).
    func partitioningIndex(where inside: (Element) -> Bool) -> Index {
        var low = startIndex, length = count
        while length > 0 {
            let half = length / 2
            let middle = index(low, offsetBy: half)
            if inside(self[middle]) {
                length = half
            } else {
                low = index(after: middle)
                length -= half + 1
            }
        }
        return low
    }
}
