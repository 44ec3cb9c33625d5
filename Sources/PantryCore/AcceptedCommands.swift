import PantryDomain

/// Accepted command ids and their log positions: the idempotency record. It holds one entry per
/// command ever accepted, so it is split into shards: a single `Dictionary` rehashes everything
/// each time it doubles, which stalled the writer for 60 ms at 196,608 commands. A shard holds
/// 1/256 of the ids and rehashes in a fraction of a millisecond.
struct AcceptedCommands {
    private static let shardCount = 256
    private var shards = [[CommandID: ClosedRange<Int64>]](repeating: [:], count: shardCount)

    subscript(commandId: CommandID) -> ClosedRange<Int64>? {
        get { shards[Self.shard(of: commandId)][commandId] }
        set { shards[Self.shard(of: commandId)][commandId] = newValue }
    }

    private static func shard(of commandId: CommandID) -> Int {
        Int(UInt(bitPattern: commandId.hashValue) % UInt(shardCount))
    }
}
