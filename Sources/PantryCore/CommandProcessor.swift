import Foundation
import Logging
import PantryDomain
import PantryEventStore
import PantryKeys
import PantryWire
import PantryLog
import ServiceLifecycle

/// The single writer: decides batches of commands against the state and appends every accepted
/// event of a batch in one transaction (group commit). Not thread-safe: one thread owns it.
package final class CommandProcessor {
    package let store: any EventStore
    /// Seals personal fields; the keys of deleted users are destroyed here, after the deletion is logged.
    package let keys: UserKeyStore
    /// Where deletions are listed outside the log, for `pantry restore` (nil: nowhere, in tests).
    private let erasures: ErasureLedger?
    package private(set) var state: PantryState
    /// The paces the rules enforce (`Paces.human` unless configured).
    package let paces: Paces
    package private(set) var head: Int64 = 0
    private var streamVersions = StreamVersions()
    /// What the state's username and email index is keyed with (`PantryState.usernames`).
    private let nameKey: NameKey
    /// The snapshot's per-user holdings not decoded yet: each user's are decoded, their grocery
    /// list opened with their key, before the first event or command of theirs (`openHoldings`),
    /// so a start decodes none.
    private var unopened = UnopenedHoldings()
    /// A deletion since the last snapshot: its user's name digests are still in the file, so a
    /// snapshot is taken once `deletionSnapshotDue`.
    private var deletionSinceSnapshot = false
    /// The write under way (or the last one) was to take deletions' digests out of the file: if it
    /// fails (a full disk), they still wait for a snapshot.
    private var writtenForDeletions = false
    /// At most one snapshot for deletions per interval: each costs about 5 s of CPU at a million
    /// users, and a client registering and deleting accounts in a loop would otherwise keep a core
    /// writing them back to back. A deleted user's digests stay in the file at most this long after
    /// the deletion, plus the write of the snapshot (and until the next start while the core is down).
    private let deletionSnapshotInterval: Duration
    /// When the last snapshot was handed to the writer; nil before the first of this process.
    private var lastSnapshotTaken: ContinuousClock.Instant?
    /// What the deletions' snapshot interval is measured with: the real clock but in tests, which move their own.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let snapshots: CoreSnapshotFile?
    private let snapshotEvery: Int64
    /// The position of the last snapshot handed to the writer (or loaded).
    package private(set) var lastSnapshot: Int64 = 0
    /// The position of the snapshot the last load started from; 0 when it folded the whole log.
    package private(set) var loadedFromSnapshot: Int64 = 0
    /// Set when the state could not be rebuilt after a failed append: nothing is decided until it
    /// is. `reloadFailure` says why.
    private var needsReload = false
    private var reloadFailure: (any Error)?
    /// Why the last write failed (its outcome's code and the store's error), until an append
    /// succeeds or `checkStorage` finds the log answering with room to write.
    private var writeFailure: String?
    /// Why writes fail now, for the core's heartbeats (`/ready` says it): the disk is full, or
    /// the last write failed and the log has not been seen working since; nil when they work.
    package private(set) var storageProblem: String?
    /// Which ids the idempotency record may hold: only those are looked up.
    private let acceptedIds: AcceptedCommandFilter
    private let logger: Logger

    /// With `snapshotPath`, the state is also kept in a snapshot there, written in the background
    /// every `snapshotEvery` events and at most `deletionSnapshotInterval` after a deletion, and a
    /// start folds only the log after it. The accepted command ids are kept in a filter of at most
    /// `commandIdFilterBytes` (see `AcceptedCommandFilter`).
    package init(store: any EventStore, keys: UserKeyStore, erasures: ErasureLedger? = nil, snapshotPath: String? = nil,
                snapshotEvery: Int64 = 100_000, deletionSnapshotInterval: Duration = .seconds(60),
                commandIdFilterBytes: Int = 64 << 20, paces: Paces = .human,
                now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
                logger: Logger = Logger(label: "pantry.core")) throws {
        self.store = store
        self.now = now
        self.paces = paces
        nameKey = try keys.nameKey()
        state = PantryState(paces: paces, nameKey: nameKey)
        self.keys = keys
        self.erasures = erasures
        self.logger = logger
        self.snapshots = snapshotPath.map { CoreSnapshotFile(path: $0, keys: keys, logger: logger) }
        self.snapshotEvery = snapshotEvery
        self.deletionSnapshotInterval = deletionSnapshotInterval
        acceptedIds = AcceptedCommandFilter(maxBytes: commandIdFilterBytes, logger: logger)
        var logged = acceptedIds.filterForLog(head: try store.headPosition())
        try load { id, _ in logged?.insert(AcceptedCommandFilter.hash(id)) }
        acceptedIds.start(logged, readingThrough: loadedFromSnapshot, of: store)
    }

    /// Waits until the command ids logged before the start are in the filter (tests and benchmarks).
    package func waitForCommandIds() {
        acceptedIds.waitForReading()
    }

    /// Memory the command-id filter holds now.
    package var commandIdFilterBytes: Int { acceptedIds.bytes }

    /// The snapshot (if it belongs to this log) and the log after it, or else the whole log,
    /// folded into memory. Called at start and after a failed append, because the failed batch's
    /// events were already evolved into `state`. `folding` sees the command id of each event folded.
    private func load(folding: (CommandID, Int64) -> Void = { _, _ in }) throws {
        let started = ContinuousClock.now
        var state = PantryState(paces: paces, nameKey: nameKey)
        var versions = StreamVersions()
        var unopened = UnopenedHoldings()
        var position: Int64 = 0
        // Every key at once, once the fold first opens a sealed field.
        let keyRing = KeyRingOnDemand(keys)
        if let snapshot = usableSnapshot() {
            state = PantryState(restoring: snapshot.holdings, paces: paces, nameKey: nameKey)
            unopened = snapshot.unopened
            versions = snapshot.streamVersions
            position = snapshot.position
            lastSnapshot = snapshot.position
            state.forgetEarnedPoints()
        }
        let fromSnapshot = position
        loadedFromSnapshot = position
        while true {
            let batch = try store.read(after: position, limit: 10_000)
            guard let last = batch.last else { break }
            for recorded in batch {
                guard recorded.position == position + 1 else {
                    throw EventStoreError.corrupt("position \(position + 1) is missing")
                }
                let event = try EventCoding.decode(
                    type: recorded.type, schemaVersion: recorded.schemaVersion, data: recorded.data, vault: keyRing)
                if !unopened.isEmpty { try Self.openHoldings(of: [event.userId], from: &unopened, into: &state, vault: keyRing) }
                if fromSnapshot > 0, event.type == .userDeleted { deletionSinceSnapshot = true }
                Decider.evolve(&state, event, at: recorded.metadata.recordedAt)
                folding(recorded.metadata.commandId, recorded.position)
                versions.record(recorded.streamVersion, of: recorded.streamId)
                position = recorded.position
            }
            position = last.position
            // The points stay in the log (`EventStore.earnedPoints`), not in memory.
            state.forgetEarnedPoints()
        }
        self.state = state
        self.streamVersions = versions
        self.unopened = unopened
        self.head = position
        // A stop between logging a deletion and listing it or destroying the key leaves them to do.
        try erasures?.record(state.deletedUsers)
        try keys.destroy(state.deletedUsers)
        logger.info("loaded the log", metadata: [
            "events": "\(position)", "snapshot": "\(fromSnapshot)", "folded": "\(position - fromSnapshot)",
            "users": "\(state.users.count)", "milliseconds": "\((ContinuousClock.now - started) / .milliseconds(1))",
        ])
        // At a start, a deletion folded after the snapshot is taken at once (nothing was taken yet).
        if deletionSnapshotDue || position - lastSnapshot >= snapshotEvery { takeSnapshot() }
    }

    /// The snapshot, when there is one and it was taken of this log (the event at its position
    /// must be the one it names: a restored or copied directory may hold another log's snapshot)
    /// and of this key file (its name digests were made with this name key).
    private func usableSnapshot() -> CoreSnapshot? {
        guard let snapshot = snapshots?.read() else { return nil }
        guard (try? store.read(positions: [snapshot.position]).first?.metadata.commandId) == snapshot.commandIdAtPosition else {
            logger.warning("ignoring a core snapshot of another log", metadata: ["position": "\(snapshot.position)"])
            return nil
        }
        guard snapshot.nameKeyCheck == nameKey.check else {
            logger.warning("ignoring a core snapshot made with another name key", metadata: ["position": "\(snapshot.position)"])
            return nil
        }
        return snapshot
    }

    /// Decodes the still-unopened holdings of `userIds` into `state`: before anything of theirs
    /// is decided or evolved. A grocery list whose key is gone (its user deleted) is dropped. All
    /// or none: holdings that do not decode leave every user's unopened.
    private static func openHoldings(of userIds: some Sequence<UserID>, from unopened: inout UnopenedHoldings,
                                     into state: inout PantryState, vault: any PersonalDataVault) throws {
        var opened: [(UserID, PantryState.UserHoldings)] = []
        for userId in userIds {
            guard let bytes = unopened[userId] else { continue }
            opened.append((userId, try CoreSnapshot.openHoldings(bytes, for: userId, vault: vault)))
        }
        for (userId, holdings) in opened {
            unopened.remove(userId)
            state.restore(holdings, for: userId)
        }
    }

    /// Hands a copy of the state at `head` to the background writer; false when a write was still
    /// under way (the snapshot is skipped).
    @discardableResult
    private func takeSnapshot() -> Bool {
        rearmAfterAFailedWrite()
        guard let snapshots, head > 0,
              let commandId = try? store.read(positions: [head]).first?.metadata.commandId else { return false }
        let submitted = snapshots.writeInBackground(CoreSnapshot(
            position: head, commandIdAtPosition: commandId, nameKeyCheck: nameKey.check, holdings: state.holdings,
            unopened: unopened, streamVersions: streamVersions))
        if submitted {
            lastSnapshot = head
            lastSnapshotTaken = now()
            writtenForDeletions = deletionSinceSnapshot
            deletionSinceSnapshot = false
        }
        return submitted
    }

    /// A deletions' snapshot that could not be written is due again an interval after it was taken
    /// (so a full disk is retried once per interval, not at every heartbeat).
    private func rearmAfterAFailedWrite() {
        guard snapshots?.takeWriteFailure() == true, writtenForDeletions else { return }
        writtenForDeletions = false
        deletionSinceSnapshot = true
        logger.warning("the snapshot for deletions was not written; it is taken again when due",
                       metadata: ["interval": "\(deletionSnapshotInterval)"])
    }

    /// A deletion waits for a snapshot, and none was taken for `deletionSnapshotInterval`.
    private var deletionSnapshotDue: Bool {
        deletionSinceSnapshot && lastSnapshotTaken.map { now() - $0 >= deletionSnapshotInterval } ?? true
    }

    /// Takes the snapshot a deletion waits for once it is due: the server calls it while idle (at
    /// each heartbeat), so it comes without another command, and as it stops (`stopping`: due at
    /// once), so a stopped core's file holds no deleted user's digests.
    package func takeDeletionSnapshotIfDue(stopping: Bool = false) {
        rearmAfterAFailedWrite()
        if !needsReload && (deletionSnapshotDue || stopping && deletionSinceSnapshot) { takeSnapshot() }
    }

    /// Decodes every user's holdings still unopened since the start, so that `state` is the whole
    /// state (tests comparing it with a fold of the log).
    package func openAllHoldings() throws {
        try Self.openHoldings(of: unopened.remainingUserIds, from: &unopened, into: &state, vault: keys)
    }

    /// Waits until a snapshot being written is on disk.
    package func waitForSnapshot() {
        snapshots?.waitForWrites()
    }

    /// The snapshot writer, for the core's service group: on graceful shutdown it waits for the
    /// snapshot being written. Nil without a snapshot path.
    package var snapshotWriter: (any Service)? { snapshots }

    /// Decides `batch` in order and commits all accepted events in one transaction. A rejected
    /// command does not affect the others; a failed commit fails every command that would have written.
    package func process(_ envelopes: [CommandEnvelope], now: Date = Date()) -> [CommandOutcome] {
        var batch = Batch(envelopes)
        process(&batch, now: now)
        return batch.outcomes
    }

    /// Decides the pending commands of `batch` and commits them: the idempotency lookup, the
    /// holdings and points the decisions read, the decisions with their seals, and one append.
    /// A stage that cannot read the log fails every pending command and the batch ends there.
    package func process(_ batch: inout Batch, now: Date = Date()) {
        if needsReload {
            reloadAfterFailure()
            if needsReload {
                return batch.fail("the log cannot be read; the core is not accepting commands", code: Self.code(of: reloadFailure))
            }
        }
        do {
            try lookUpAcceptedIds(in: &batch)
        } catch {
            logger.log(level: Self.level(of: error), "could not read the idempotency record", metadata: ["error": "\(error)"])
            noteWriteFailure(error)
            return batch.fail("the log cannot be read: \(error)", code: Self.code(of: error))
        }
        let pending = batch.pending
        do {
            try Self.openHoldings(of: pending.map(\.command.userId), from: &unopened, into: &state, vault: keys)
        } catch {
            logger.error("could not decode a user's holdings of the snapshot", metadata: ["error": "\(error)"])
            return batch.fail("the core's state cannot be read: \(error)")
        }
        // The one-point rule decides from the points its commands ask for, read from the log now
        // and forgotten after the batch: memory stays flat however many points were ever earned.
        defer { state.forgetEarnedPoints() }
        do {
            try recallPoints(askedBy: pending)
        } catch {
            logger.log(level: Self.level(of: error), "could not read the earned points", metadata: ["error": "\(error)"])
            noteWriteFailure(error)
            return batch.fail("the log cannot be read: \(error)", code: Self.code(of: error))
        }
        let recordedAt = Int64(now.timeIntervalSince1970 * 1000)
        batch.decide { envelope, keyedId in decide(envelope, keyedId: keyedId, at: recordedAt) }
        commit(&batch)
    }

    /// Answers the commands the idempotency record holds from it. An id that carries a client's
    /// Idempotency-Key is in the record keyed with its user's key (`storedId`); a log written
    /// before that holds it as sent, so both are asked for.
    private func lookUpAcceptedIds(in batch: inout Batch) throws {
        try batch.keyIds { envelope in
            Self.carriesClientKey(envelope.commandId, of: envelope.command.userId)
                ? try keys.commandIdAsStored(envelope.commandId, for: envelope.command.userId) : nil
        }
        let asked = acceptedIds.mayHaveAccepted(batch.idsToLookUp)
        guard !asked.isEmpty else { return }
        batch.recognise(try store.acceptedCommands(asked)) { envelope, accepted in
            // The same command: its fingerprint as stored (keyed), or as stored unkeyed (other
            // commands, and logs written before).
            let fingerprint = CommandCoding.fingerprint(envelope.command)
            let keyed = Self.fingerprintHoldsText(envelope.command)
                ? try? keys.fingerprintAsStored(fingerprint, for: envelope.command.userId) : nil
            return accepted.fingerprint.map { $0 == keyed || $0 == fingerprint } != false
        }
    }

    /// Reads from the log the points `envelopes` ask for, into the state for this batch.
    private func recallPoints(askedBy envelopes: [CommandEnvelope]) throws {
        let asked = envelopes.compactMap { envelope -> PointKey? in
            guard case .useOwnedIngredient(let command) = envelope.command, let point = state.pointAsked(by: command) else { return nil }
            return PointKey(userId: point.userId, recipeId: point.recipeId, ingredient: point.ingredient)
        }
        for point in try store.earnedPoints(asked) {
            state.recall(PointEarned(userId: point.userId, recipeId: point.recipeId, ingredient: point.ingredient))
        }
    }

    /// One command decided against the state, its events sealed into its append and evolved
    /// into the state, so the next command of the batch is decided after it.
    private func decide(_ envelope: CommandEnvelope, keyedId: String?, at recordedAt: Int64) -> BatchSlot.Decision {
        let events: [Event]
        switch Decider.decide(envelope, state: state, at: recordedAt) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let decided): events = decided
        }
        let userId = envelope.command.userId
        let newEvents: [NewEvent]
        do {
            // Sealed before the id is keyed: a registration's seal makes the user's key.
            let payloads = try events.map { ($0.type, try EventCoding.encode($0, vault: keys)) }
            // A user without a key when the batch began (a registration) gets one now.
            let storedId = Self.carriesClientKey(envelope.commandId, of: userId)
                ? try keyedId ?? keys.commandIdAsStored(envelope.commandId, for: userId, making: true) ?? envelope.commandId
                : envelope.commandId
            let fingerprint = CommandCoding.fingerprint(envelope.command)
            let metadata = EventMetadata(
                commandId: storedId, correlationId: envelope.correlationId,
                causationId: envelope.causationId, userId: userId, recordedAt: recordedAt,
                commandFingerprint: Self.fingerprintHoldsText(envelope.command)
                    ? try keys.fingerprintAsStored(fingerprint, for: userId, making: true) ?? fingerprint : fingerprint)
            newEvents = payloads.map { NewEvent(type: $0.rawValue, schemaVersion: $0.schemaVersion, data: $1, metadata: metadata) }
        } catch {
            return .failed("the personal fields could not be sealed: \(error)")
        }
        let stream = userStream(userId)
        let expected = streamVersions.version(of: stream) ?? 0
        streamVersions.record(expected + Int64(events.count), of: stream)
        for event in events { Decider.evolve(&state, event, at: recordedAt) }
        return .decided(StreamAppend(streamId: stream, expectedVersion: expected, events: newEvents))
    }

    /// Writes the batch's appends in one transaction.
    private func commit(_ batch: inout Batch) {
        let appends = batch.appends
        guard !appends.isEmpty else { return }
        // Before the append: a commit that reports a failure may still reach the disk (a failed
        // fsync), and an id wrongly taken for a logged one costs only a lookup.
        acceptedIds.insert(batch.idsToCommit)
        do {
            // The keys that seal this batch's registrations are on disk before the events are.
            try keys.persistPending()
            let ranges = try store.append(appends)
            batch.committed(ranges)
            head = ranges.last?.upperBound ?? head
            writeFailure = nil
            let deletedUsers = batch.deletedUsers
            destroyKeys(of: deletedUsers)
            // Within `deletionSnapshotInterval` of a deletion, so that the user's name digests leave the file.
            if !deletedUsers.isEmpty { deletionSinceSnapshot = true }
            if deletionSnapshotDue || head - lastSnapshot >= snapshotEvery { takeSnapshot() }
        } catch {
            keys.discardPending()
            // Unless the session died between COMMIT and its answer: then the batch may be in
            // the log, and the reload (now, or before the next batch) folds it if it is, so
            // a retry with the same id is answered from the idempotency record.
            logger.log(level: Self.level(of: error), "append failed; nothing of this batch was written", metadata: ["error": "\(error)"])
            batch.commitFailed("the log could not be written: \(error)", code: Self.code(of: error))
            noteWriteFailure(error)
            reloadAfterFailure()
        }
    }

    /// Over HTTP a command id is `<userId>:<Idempotency-Key>`: text the client chose, which the log
    /// keeps only keyed with the user's key (`UserKeyStore.commandIdAsStored`). Such an id names a
    /// command of that user only, so keying it per user loses no collision between users; every
    /// other id (made by the API or an operator) is stored as it is, and stays unique across users.
    static func carriesClientKey(_ commandId: CommandID, of userId: UserID) -> Bool {
        commandId.utf8.count > userId.utf8.count + 1 && commandId.utf8.starts(with: userId.utf8)
            && commandId.utf8.dropFirst(userId.utf8.count).first == UInt8(ascii: ":")
    }

    /// Commands whose fingerprint hashes text the person wrote (a name, an email, a password hash,
    /// a grocery item, a tip): an unkeyed 64-bit hash of a short item such as "insulin pens" is
    /// reversed by trying names, so theirs is stored keyed with the user's key. The others carry
    /// recipe ids and catalog ingredients only, and keep the plain one (a point pays no HMAC for
    /// it, and a deletion retried after its key is gone is still recognised).
    static func fingerprintHoldsText(_ command: Command) -> Bool {
        switch command {
        case .registerUser, .changePassword, .resetPassword, .addGrocery, .checkGrocery, .removeGrocery, .writeExperience: true
        case .saveRecipe, .removeSavedRecipe, .useOwnedIngredient, .adjustCart, .startCooking, .deleteUser, .revokeSession: false
        // Ids, and the SHA-256 of a random invite code: nothing a person wrote.
        case .createHousehold, .inviteToHousehold, .revokeHouseholdInvite, .joinHousehold, .leaveHousehold,
             .removeHouseholdMember, .handOverHousehold: false
        // The keyed digest of a random token.
        case .requestPasswordReset: false
        }
    }

    /// The deletions are in the log; a key that cannot be destroyed now (or a ledger that cannot be
    /// written) is done at the next start (`load`), so it is logged, not failed: the answer to the
    /// user is already true. The ledger first: a key destroyed and not listed could come back with
    /// a backup.
    private func destroyKeys(of userIds: [UserID]) {
        guard !userIds.isEmpty else { return }
        do {
            try erasures?.record(userIds)
        } catch {
            logger.error("could not list the deleted users in the erasure ledger yet; the next start will",
                         metadata: ["users": "\(userIds.count)", "error": "\(error)"])
        }
        do {
            try keys.destroy(userIds)
        } catch {
            logger.error("could not destroy the keys of deleted users yet; the next start will",
                         metadata: ["users": "\(userIds.count)", "error": "\(error)"])
        }
    }

    /// The failed batch was already evolved into `state`; only the log can say what is true now.
    /// Ids folded past the head this core knew were written by another core (while this one's
    /// session was lost) or by the failed batch itself: they go into the filter, or a retry of one
    /// would be taken for a new command.
    private func reloadAfterFailure() {
        let known = head
        do {
            var ids: [CommandID] = []
            try load { id, position in if position > known { ids.append(id) } }
            acceptedIds.insert(ids)
            needsReload = false
            reloadFailure = nil
        } catch {
            needsReload = true
            reloadFailure = error
            logger.log(level: Self.level(of: error) == .debug ? .debug : .critical,
                       "cannot reload the log after a failed append", metadata: ["error": "\(error)"])
        }
    }

    private func noteWriteFailure(_ error: any Error) {
        writeFailure = "\(Self.code(of: error).rawValue): \(error)"
        storageProblem = writeFailure
    }

    /// Whether writes can be expected to work, for the heartbeats: the store's own obstacle (a
    /// full disk, seen before any command fails), else the last write's failure while the log
    /// does not answer. A failed write is forgotten once the log answers a read with room to
    /// write (a disk freed, a server back), so `/ready` recovers without a command having to
    /// succeed first (no traffic comes to an API that is not ready). Reads the log only while
    /// a failure is remembered.
    package func checkStorage() {
        let obstacle = store.writeObstacle()
        if writeFailure != nil, obstacle == nil, (try? store.headPosition()) != nil { writeFailure = nil }
        storageProblem = obstacle ?? writeFailure
    }

    /// `storage_unavailable` when the log's server cannot be reached (the store logged that once),
    /// else `storage_error`.
    private static func code(of error: (any Error)?) -> CommandOutcome.Code {
        if case .unavailable? = error as? EventStoreError { .storageUnavailable } else { .storageError }
    }

    /// An unreachable server is logged by the store when it goes and when it is back; each
    /// command that fails meanwhile is not worth a line.
    private static func level(of error: any Error) -> Logger.Level {
        if case .unavailable? = error as? EventStoreError { .debug } else { .error }
    }

    /// The positions of an accepted command of `userId`, if this id was accepted before.
    package func positions(of commandId: CommandID, by userId: UserID) throws -> ClosedRange<Int64>? {
        let stored = Self.carriesClientKey(commandId, of: userId) ? try keys.commandIdAsStored(commandId, for: userId) ?? commandId : commandId
        return try store.acceptedCommands([stored])[stored]?.positions
    }
}
