import PantryDomain

/// The users' holdings a snapshot stored (`CoreSnapshot.userBytes`) not decoded yet, read in place
/// (`StoredKeys` of user ids, `StoredRuns` of their bytes): each user's are decoded before their
/// first event or command, and taken out then.
struct UnopenedHoldings {
    private var userIds = StoredKeys()
    private var runs = StoredRuns()
    private var opened: [Bool] = []
    private(set) var count = 0

    init() {}

    init(reading r: inout SnapshotReader) throws {
        userIds = try StoredKeys(reading: &r)
        runs = try StoredRuns(reading: &r)
        guard runs.count == userIds.count else { throw SnapshotFailure.notASnapshot }
        opened = Array(repeating: false, count: runs.count)
        count = runs.count
    }

    var isEmpty: Bool { count == 0 }

    subscript(userId: UserID) -> ArraySlice<UInt8>? {
        guard count > 0, let index = userIds.index(of: userId), !opened[index] else { return nil }
        return runs[index]
    }

    mutating func remove(_ userId: UserID) {
        guard count > 0, let index = userIds.index(of: userId), !opened[index] else { return }
        opened[index] = true
        count -= 1
    }

    /// The users whose holdings are still here.
    var remainingUserIds: [UserID] {
        runs.indices.filter { !opened[$0] }.map(userIds.key(at:))
    }

    /// As `init(reading:)` reads them: those still here merged with `fresh` (the holdings of the
    /// users opened since, none of them still here), ascending.
    func write(with fresh: [UserID: [UInt8]], into w: inout SnapshotWriter) {
        let freshIds = fresh.keys.sorted(by: StoredKeys.ascending)
        var ids = StoredRuns.Writer(), holdings = StoredRuns.Writer()
        userIds.merge(runs.indices.lazy.filter { !opened[$0] }, with: freshIds,
                      stored: { ids.append(userIds.bytes(at: $0)); holdings.append(runs[$0]) },
                      added: { ids.append($0.utf8); holdings.append(fresh[$0]!) })
        ids.write(into: &w)
        holdings.write(into: &w)
    }
}
