import Foundation
import PantryBus
import PantryCore
import PantryDomain
import PantryTestSupport
import Testing
import ZeroMQ

/// A deletion's snapshot, which takes the deleted user's name digests out of `core.snapshot`: at
/// most one per `deletionSnapshotInterval`, and within it even when no other command comes.
@Suite struct DeletionSnapshotTests {
    private static let users = (1...12).map { "u\($0)" }

    private static func digests(_ processor: CommandProcessor, of userId: UserID) -> [Data] {
        nameDigests(processor.state.nameKey, username: "user_\(userId)", email: "\(userId)@example.org")
    }

    /// A client deleting accounts in a loop: each deletion its own batch, each snapshot waited for
    /// (so none is skipped for a write under way). One snapshot is written, at the first deletion.
    @Test func deletionsInQuickSuccessionWriteOneSnapshot() throws {
        try withTemporaryDirectory { dir in
            let processor = try openProcessor(dir, snapshotEvery: 1_000_000)
            let registered = processor.process(Self.users.map { envelope("r-\($0)", register($0)) })
            #expect(registered.allSatisfy { $0.status == .accepted }, "\(registered)")
            var firstSnapshot: Int64 = 0
            for userId in Self.users {
                #expect(processor.process([envelope("d-\(userId)", .deleteUser(DeleteUser(userId: userId)))]).first?.status == .accepted)
                if firstSnapshot == 0 { firstSnapshot = processor.head }
                processor.waitForSnapshot()
            }
            #expect(try !snapshotHoldsAny(Self.digests(processor, of: "u1"), in: dir), "the first deletion's snapshot was taken at once")
            #expect(try snapshotHoldsAny(Self.digests(processor, of: "u12"), in: dir), "the last waits for the interval")

            // The file is the first deletion's; a start folds the others and takes one at once.
            let reopened = try openProcessor(dir, snapshotEvery: 1_000_000)
            #expect(reopened.loadedFromSnapshot == firstSnapshot && firstSnapshot < reopened.head)
            reopened.waitForSnapshot()
            #expect(try !snapshotHoldsAny(Self.users.flatMap { Self.digests(reopened, of: $0) }, in: dir))
            #expect(try openProcessor(dir, snapshotEvery: 1_000_000).loadedFromSnapshot == reopened.head)
        }
    }

    /// Without another command, the processor's idle call (the server's heartbeat) takes it once due.
    @Test func aDeferredDeletionSnapshotIsTakenWhenDueWithoutAnotherCommand() throws {
        try withTemporaryDirectory { dir in
            let clock = ManualClock()
            let processor = try openProcessor(dir, snapshotEvery: 1_000_000, deletionSnapshotInterval: .seconds(1), clock: clock)
            #expect(processor.process([envelope("r1", register("u1")), envelope("r2", register("u2"))]).allSatisfy { $0.status == .accepted })
            #expect(processor.process([envelope("d1", .deleteUser(DeleteUser(userId: "u1")))]).first?.status == .accepted)
            #expect(processor.process([envelope("d2", .deleteUser(DeleteUser(userId: "u2")))]).first?.status == .accepted)
            processor.takeDeletionSnapshotIfDue()
            processor.waitForSnapshot()
            let u2 = Self.digests(processor, of: "u2")
            #expect(try snapshotHoldsAny(u2, in: dir), "not due yet")
            clock.advance(by: .milliseconds(999))
            processor.takeDeletionSnapshotIfDue()
            processor.waitForSnapshot()
            #expect(try snapshotHoldsAny(u2, in: dir), "not due a millisecond before the interval")
            clock.advance(by: .milliseconds(1))
            processor.takeDeletionSnapshotIfDue()
            processor.waitForSnapshot()
            #expect(try !snapshotHoldsAny(u2, in: dir))
            #expect(try openProcessor(dir, snapshotEvery: 1_000_000).loadedFromSnapshot == processor.head)
        }
    }

    /// A deletions' snapshot that could not be written (here its temporary file's place is taken by
    /// a directory, as a full disk would refuse it) is taken again once due, not left to the next
    /// regular snapshot, which may be days away.
    @Test func aDeletionSnapshotThatFailedToBeWrittenIsTakenAgain() throws {
        try withTemporaryDirectory { dir in
            let clock = ManualClock()
            let processor = try openProcessor(dir, snapshotEvery: 2, deletionSnapshotInterval: .milliseconds(300), clock: clock)
            #expect(processor.process([envelope("r1", register("u1")), envelope("r2", register("u2"))]).allSatisfy { $0.status == .accepted })
            processor.waitForSnapshot()
            let u1 = Self.digests(processor, of: "u1")
            #expect(try snapshotHoldsAny(u1, in: dir))

            let blocker = dir.appendingPathComponent("core.snapshot.new")
            try FileManager.default.createDirectory(at: blocker.appendingPathComponent("full"), withIntermediateDirectories: true)
            #expect(processor.process([envelope("d1", .deleteUser(DeleteUser(userId: "u1")))]).first?.status == .accepted)
            clock.advance(by: .milliseconds(350))
            processor.takeDeletionSnapshotIfDue()
            processor.waitForSnapshot()
            #expect(try snapshotHoldsAny(u1, in: dir), "the write failed")

            try FileManager.default.removeItem(at: blocker)
            clock.advance(by: .milliseconds(350))
            processor.takeDeletionSnapshotIfDue()
            processor.waitForSnapshot()
            #expect(try !snapshotHoldsAny(u1, in: dir))
        }
    }

    /// The same through `CoreServer` over real sockets: after the last deletion no command comes, and
    /// the file loses the users' digests within the interval (200 ms) and a few heartbeats.
    @Test(.timeLimit(.minutes(1)))
    func theCoreServerTakesADeletionSnapshotWhileIdle() async throws {
        try await withTemporaryDirectory { dir in
            try await Self.serveDeletions(dir, interval: .milliseconds(200)) { _, deleted async throws in
                #expect(try await Self.waitUntilGone(deleted, from: dir), "every deleted user's digests left the file")
            }
        }
    }

    /// A core stopped within the interval writes the snapshot it was waiting for.
    @Test(.timeLimit(.minutes(1)))
    func aCoreThatStopsWritesTheDeletionSnapshotItWasWaitingFor() async throws {
        try await withTemporaryDirectory { dir in
            try await Self.serveDeletions(dir, interval: .seconds(600)) { serving, deleted async throws in
                #expect(try await Self.waitUntilGone(Array(deleted.prefix(2)), from: dir), "the first deletion's snapshot")
                #expect(try snapshotHoldsAny(Array(deleted.suffix(2)), in: dir), "the last deletion waits")
                serving.cancel()
                #expect(try await Self.waitUntilGone(deleted, from: dir), "written as the server stopped")
            }
        }
    }

    /// A core server on `dir` (its snapshot at most every `interval` for deletions) that registers
    /// three users and deletes them, one batch each; `then` runs while it serves, with the deleted
    /// users' digests in the order deleted.
    private static func serveDeletions(_ dir: URL, interval: Duration,
                                       then: (Task<Void, any Error>, [Data]) async throws -> Void) async throws {
        let processor = try openProcessor(dir, snapshotEvery: 1_000_000, deletionSnapshotInterval: interval)
        let users = Self.users.prefix(3)
        let deleted = users.flatMap { digests(processor, of: $0) }
        let context = try ZMQContext()
        let endpoints = BusEndpoints(dataDirectory: dir)
        let server = try CoreServer(processor: processor, context: context, configuration: .init(endpoints: endpoints),
                                    logger: quietLogger())
        let serving = Task.immediate { try await server.run() }
        defer {
            serving.cancel()
            context.shutdown()
        }
        let client = try CommandClient(context: context, endpoint: endpoints.commands, timeout: .seconds(30))
        #expect(try client.submit(users.map { envelope("r-\($0)", register($0)) }).allSatisfy { $0.status == .accepted })
        for userId in users {
            #expect(try client.submit(envelope("d-\(userId)", .deleteUser(DeleteUser(userId: userId)))).status == .accepted)
        }
        try await then(serving, deleted)
    }

    /// Whether none of `digests` is in the snapshot file within 20 s: the server's thread writes it
    /// and tells the test nothing, so the file is looked at until it changes.
    private static func waitUntilGone(_ digests: [Data], from dir: URL) async throws -> Bool {
        try await waitUntil(timeout: .seconds(20), interval: .milliseconds(50)) {
            let written = FileManager.default.fileExists(atPath: dir.appendingPathComponent("core.snapshot").path)
            return try written && !snapshotHoldsAny(digests, in: dir)
        }
    }
}
