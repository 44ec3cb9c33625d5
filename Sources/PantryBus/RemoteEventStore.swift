import Foundation
import PantryLog
import Synchronization
import ZeroMQ
import PantryWire

/// The log read over the network from the core's log service (`LogServer`): what the workers and
/// the API read instead of the log's file, so they need only their own data directory. Only the
/// reads of `EventLogReader` (a follower's, and the API's counted ingredients): the core is the
/// single writer, and the idempotency and one-point checks are its own.
///
/// A read that gets no answer within `timeout` throws `Unavailable` (the core is down or
/// restarting); the caller keeps what it has and asks again later. The next read goes out on a
/// new socket, so a late answer to the old one cannot be taken for its own.
package final class RemoteEventStore: EventLogReader {
    package struct Unavailable: Error, CustomStringConvertible {
        package var endpoint: String
        package var description: String { "the core's log service at \(endpoint) did not answer" }
    }

    private let context: ZMQContext
    private let endpoint: String
    private let timeout: Duration
    private let client: Mutex<RequestClient?> = Mutex(nil)

    package init(context: ZMQContext, endpoint: String, timeout: Duration = .seconds(3)) {
        self.context = context
        self.endpoint = endpoint
        self.timeout = timeout
    }

    /// One request and every frame of its answer.
    private func exchange(_ read: LogRead) throws -> [Data] {
        try client.withLock { client in
            let connection = try client ?? RequestClient(context: context, endpoint: endpoint, timeout: timeout)
            client = connection
            do {
                return try connection.exchange(read.json)
            } catch RequestClient.Failure.timeout {
                client = nil
                throw Unavailable(endpoint: endpoint)
            }
        }
    }

    /// One read: the header and the events.
    private func ask(_ read: LogRead) throws -> (answer: LogAnswer, events: [RecordedEvent]) {
        let frames = try exchange(read)
        let answer = try LogAnswer.decode(frames[0])
        guard frames.count == answer.events + 1 else {
            throw EventStoreError.corrupt("the log service announced \(answer.events) events and sent \(frames.count - 1)")
        }
        return (answer, try frames.dropFirst().map(FeedMessage.recordedEvent(document:)))
    }

    /// A chunk of the snapshot of `projection` the service keeps (`LogRead.snapshot`): its header
    /// and its bytes. Throws `SnapshotChunk.Refused` when the service has none (at that position).
    package func snapshotChunk(of projection: WorkerName, position: Int64, offset: Int64) throws -> (chunk: SnapshotChunk, bytes: Data) {
        let frames = try exchange(.snapshot(projection: projection, position: position, offset: offset))
        let chunk = try SnapshotChunk.decode(frames[0])
        guard frames.count == 2 else {
            throw EventStoreError.corrupt("the log service sent a snapshot chunk in \(frames.count) frames, not 2")
        }
        return (chunk, frames[1])
    }

    package func read(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        var after = position
        while events.count < limit {
            let (answer, batch) = try ask(.range(after: after, limit: limit - events.count))
            events += batch
            guard !batch.isEmpty else { break }
            after = answer.through
        }
        return events
    }

    package func read(after position: Int64, through last: Int64, types: Set<String>) throws -> [RecordedEvent] {
        guard last > position, !types.isEmpty else { return [] }
        var events: [RecordedEvent] = []
        var after = position
        while after < last {
            let (answer, batch) = try ask(.types(after: after, through: last, types: types))
            events += batch
            // A range beyond the head is answered up to the head; what lies past it is not written yet.
            guard answer.through > after else { break }
            after = answer.through
        }
        return events
    }

    package func read(positions: [Int64]) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        var left = positions.sorted()
        while !left.isEmpty {
            let (answer, batch) = try ask(.positions(Array(left.prefix(LogRead.maxPositions))))
            events += batch
            left.removeAll { $0 <= answer.through }
        }
        return events
    }

    package func headPosition() throws -> Int64 {
        try ask(.head).answer.head
    }

    package func earnedIngredients(userId: String, recipeId: String) throws -> EarnedIngredients {
        let frames = try exchange(.counted(userId: userId, recipeId: recipeId))
        guard frames.count == 1 else {
            throw EventStoreError.corrupt("the log service answered a counted read in \(frames.count) frames, not 1")
        }
        return try EarnedIngredients.decode(frames[0])
    }

}
