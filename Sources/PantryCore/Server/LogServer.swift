import Foundation
import Logging
import PantryDomain
import PantryEventStore
import PantryThreads
import ServiceLifecycle
import ZeroMQ
import PantryWire
import PantryLog
import PantryBus

/// The log service beside the core: answers range reads of the log on a ROUTER socket
/// (`schemas/zeromq.md`, "The log"), so a worker or an API process catches up, repairs gaps and
/// starts from any position over the network, with no access to the core's files.
///
/// Sealed personal fields are opened here with the core's key vault before they are sent, so the
/// keys never leave the core's host; each asker gets only those its role needs (`View`), under
/// CURVE on `tcp://`.
///
/// It answers the API's "already counted" read (`counted`) from the log's point index, and
/// it also serves, in chunks, the projection snapshots the workers on this host leave in
/// `snapshots` (`ProjectionSnapshots`), so a worker on a new host starts from a recent copy of its
/// projection instead of folding the whole log (docs/architecture.md, "A fresh worker").
package final class LogServer: Service {
    package struct Limits: Sendable {
        /// Events in one answer.
        package var maxEvents = 10_000
        /// Bytes of event documents in one answer (one event always goes, whatever its size).
        package var maxBytes = 4 << 20
        /// A request larger than this makes libzmq drop the sender.
        package var maxRequestBytes: Int64 = 1 << 20
        /// Bytes of a snapshot in one answer: a projection file may be hundreds of MB.
        package var snapshotChunkBytes = 4 << 20

        package init() {}
    }

    private let log: any EventStore
    private let vault: any PersonalDataVault & Sendable
    private let context: ZMQContext
    private let endpoint: String
    private let snapshots: URL?
    private let limits: Limits
    private let thread: ServiceThread<Never>
    private let logger: Logger

    package init(log: any EventStore, vault: any PersonalDataVault & Sendable, context: ZMQContext,
                 endpoint: String, snapshots: URL? = nil, limits: Limits = Limits(), logger: Logger) throws {
        self.log = log
        self.snapshots = snapshots
        self.vault = vault
        self.context = context
        self.endpoint = endpoint
        self.limits = limits
        self.logger = logger
        thread = try ServiceThread(name: "log-service")
    }

    /// Binds `endpoint` and serves on a thread of its own, which owns the socket, until the group
    /// shuts down gracefully or the context is shut down.
    package func run() async throws {
        try await thread.run { [self] thread in
            let socket = try ZMQSocket(context: context, type: .router)
            try socket.setMaxMessageSize(limits.maxRequestBytes)
            // A SIGKILLed core leaves the file behind; the core's writer lock proves nobody uses it.
            try socket.bindReplacingStaleFile(endpoint)
            logger.info("log service serving", metadata: ["endpoint": "\(endpoint)"])
            serve(socket, thread)
        }
    }

    private func serve(_ socket: ZMQSocket, _ thread: ServiceThread<Never>) {
        var poller = ZMQPoller()
        poller.register(socket)
        poller.register(fileDescriptor: thread.wakeDescriptor)
        while !thread.isStopping {
            do {
                let ready = try poller.poll(timeoutMilliseconds: -1)
                if ready[1].contains(.readable) { _ = thread.takeMessages() }
                guard ready[0].contains(.readable) else { continue }
                while let (frames, userId) = try socket.receiveWithUserId(dontWait: true) {
                    guard frames.count >= 2 else { continue }
                    let reply = answer(frames[frames.count - 1], view: Self.view(forUserId: userId))
                    try socket.send(Array(frames.dropLast()) + reply, dontWait: true)
                }
            } catch let error as ZMQError where error.isTerminated {
                return
            } catch {
                logger.warning("log service could not answer", metadata: ["error": "\(error)"])
            }
        }
    }

    /// A chunk of the newest snapshot of `projection` (or of the one at `position`): its header and
    /// its bytes. The file's name comes from the manifest's projection and position, never from the
    /// request; a worker replacing its copy meanwhile makes a download at the old position refused.
    private func snapshotChunk(_ projection: WorkerName, position: Int64, offset: Int64) -> [Data] {
        guard let snapshots,
              let data = FileManager.default.contents(atPath: snapshots.appendingPathComponent(SnapshotManifest.manifestName(projection)).path)
        else {
            return [LogAnswer.refusal("no snapshot of \(projection.rawValue) is kept here", code: .notFound)]
        }
        do {
            let manifest = try SnapshotManifest(json: data)
            guard manifest.projection == projection, position == 0 || manifest.position == position else {
                return [LogAnswer.refusal("the snapshot of \(projection.rawValue) at \(position) was replaced (now at \(manifest.position))",
                                          code: .notFound)]
            }
            guard offset <= manifest.size else {
                return [LogAnswer.refusal("offset \(offset) is beyond the snapshot's \(manifest.size) bytes")]
            }
            let file = try FileHandle(forReadingFrom: snapshots.appendingPathComponent(manifest.fileName))
            defer { try? file.close() }
            try file.seek(toOffset: UInt64(offset))
            let bytes = try file.read(upToCount: Int(min(Int64(limits.snapshotChunkBytes), manifest.size - offset))) ?? Data()
            return [SnapshotChunk(manifest: manifest, offset: offset, bytes: bytes.count).json, bytes]
        } catch {
            logger.warning("log service could not read a snapshot", metadata: ["projection": "\(projection.rawValue)", "error": "\(error)"])
            return [LogAnswer.refusal("the snapshot of \(projection.rawValue) could not be read: \(error)", code: .notFound)]
        }
    }

    /// What a peer is sent of the personal fields, by the role its CURVE key is listed with (the
    /// `User-Id` its ZAP handler gave; docs/keys.md, "What the log service opens"). Only an API host
    /// verifies passwords and shows people their own details; a worker host or an operator's
    /// replay folds projections, which need a username but never an email or a hash, so one stolen
    /// worker key gives up no hash to crack. A local peer (`ipc://`, whose file permissions admit
    /// only processes that could open the key vault themselves) and a plain network
    /// (`--insecure-network`, where nobody proves a role) get everything.
    package enum View: Sendable, Equatable {
        case everything, projections
    }

    package static func view(forUserId userId: String?) -> View {
        guard let userId else { return .everything }
        return userId == NetworkRole.api.rawValue || userId == ZMQCurvePolicy.localPeer ? .everything : .projections
    }

    /// The answer's frames: a header, then one event document per event.
    func answer(_ request: Data, view: View = .everything) -> [Data] {
        let read: LogRead
        do {
            read = try LogRead(json: request)
        } catch {
            return [LogAnswer.refusal("the request is not a log read of the documented shape: \(error)")]
        }
        do {
            let head = try log.headPosition()
            let events: [RecordedEvent], reach: Int64
            switch read {
            case .head:
                return [LogAnswer(head: head, through: head, events: 0).json]
            case .snapshot(let projection, let position, let offset):
                return snapshotChunk(projection, position: position, offset: offset)
            case .counted(let userId, let recipeId):
                return [try log.earnedIngredients(userId: userId, recipeId: recipeId).json]
            case .range(let after, let limit):
                events = try log.read(after: after, limit: min(limit, limits.maxEvents))
                reach = events.last?.position ?? after
            case .types(let after, let through, let types):
                // Positions are dense: a window of `maxEvents` positions holds at most that many events.
                reach = min(through, head, after + Int64(limits.maxEvents))
                events = try log.read(after: after, through: reach, types: types)
            case .positions(let positions):
                guard positions.count <= LogRead.maxPositions else {
                    return [LogAnswer.refusal("at most \(LogRead.maxPositions) positions in one read, not \(positions.count)")]
                }
                events = try log.read(positions: positions)
                reach = positions.max() ?? 0
            }
            var documents: [Data] = []
            var bytes = 0
            for event in events {
                var opened = event
                switch view {
                case .everything:
                    opened.data = try EventCoding.opened(type: event.type, data: event.data, vault: vault)
                case .projections:
                    (opened.schemaVersion, opened.data) = try EventCoding.openedForProjections(
                        type: event.type, schemaVersion: event.schemaVersion, data: event.data, vault: vault)
                }
                let document = EventDocument.encode(opened)
                bytes += document.count
                if bytes > limits.maxBytes || documents.count == limits.maxEvents, !documents.isEmpty {
                    // Cut short: the answer reaches the last event it holds.
                    return [LogAnswer(head: head, through: events[documents.count - 1].position, events: documents.count).json]
                        + documents
                }
                documents.append(document)
            }
            return [LogAnswer(head: head, through: max(reach, events.last?.position ?? 0), events: documents.count).json] + documents
        } catch {
            logger.error("log service could not read the log", metadata: ["error": "\(error)"])
            return [LogAnswer.refusal("the log could not be read: \(error)", code: .unavailable)]
        }
    }
}
