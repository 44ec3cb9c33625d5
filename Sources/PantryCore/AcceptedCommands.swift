import PantryDomain

/// Accepted command ids and their log positions: the idempotency record. It holds one entry per
/// command ever accepted, so it is split into shards: a single `Dictionary` rehashes everything
/// each time it doubles, which stalled the writer for 60 ms at 196,608 commands. A shard holds
/// 1/256 of the ids and rehashes in a fraction of a millisecond.
struct AcceptedCommands {
    /// Where the command's events are, and what it asked for (nil for commands logged before
    /// fingerprints were kept: those ids answer any retry, as they always did).
    struct Entry {
        var positions: ClosedRange<Int64>
        var fingerprint: UInt64?
    }

    private static let shardCount = 256
    private var shards = [[CommandID: Entry]](repeating: [:], count: shardCount)

    subscript(commandId: CommandID) -> Entry? {
        get { shards[Self.shard(of: commandId)][commandId] }
        set { shards[Self.shard(of: commandId)][commandId] = newValue }
    }

    private static func shard(of commandId: CommandID) -> Int {
        Int(UInt(bitPattern: commandId.hashValue) % UInt(shardCount))
    }
}
