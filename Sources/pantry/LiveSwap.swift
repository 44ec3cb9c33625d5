import ArgumentParser
import Foundation
import PantryBus
import PantryCore
import PantryEventStore
import PantryProjections
import PantryWire
import ZeroMQ

/// The end of `pantry replay NAME`: the finished rebuild becomes the projection's state, whether
/// its worker runs (asked over its query socket to adopt it, so no other process stops) or not
/// (renamed over the file, holding the worker's lock so that none starts meanwhile).
struct LiveSwap {
    var worker: WorkerName
    var directory: DataDirectory
    var rebuilt: URL
    var endpoint: String
    var context: ZMQContext

    /// A worker copies the rebuild into its file in one transaction, in a time that grows with its
    /// size (50 ms for 4 MB in a debug build on a loaded machine). One silent this long is stuck.
    static let workerTimeout: Duration = .seconds(120)

    /// Says what was done; throws when the rebuild was not swapped in.
    func run() throws -> String {
        if let lock = try stoppedWorkersLock() { return try swapIn(holding: lock) }
        // The answer is awaited a second at a time: a worker that dies meanwhile (killed, or
        // stopped with the others) frees its lock, and then the replay finishes the job.
        let client = try RequestClient(context: context, endpoint: endpoint, timeout: .seconds(1))
        try client.post(QueryRequest(.swap(worker)).document)
        let deadline = ContinuousClock.now + Self.workerTimeout
        while ContinuousClock.now < deadline {
            if let reply = try client.reply() { return try Self.describe(reply, of: worker) }
            guard let lock = try stoppedWorkersLock() else { continue }
            guard FileManager.default.fileExists(atPath: rebuilt.path) else {
                throw ValidationError("the \(worker) worker took the rebuild and stopped before it answered: its file holds "
                    + "the old state or the new one, whole; compare them with pantry replay --verify \(worker)")
            }
            return "\(try swapIn(holding: lock)), once the running one had stopped without answering"
        }
        // Over tcp:// the worker's queries admit only API hosts' keys (`BusEndpoints.admittedRoles`).
        let refused = endpoint.hasPrefix("tcp://") ? " (over tcp:// it admits only API keys: stop it, and the replay replaces its file)" : ""
        throw ValidationError("the \(worker) worker runs but did not answer at \(endpoint) within \(Self.workerTimeout)\(refused); "
            + "its file holds the old state or the new one, whole (the rebuild is \(FileManager.default.fileExists(atPath: rebuilt.path) ? "left at \(rebuilt.path)" : "taken"))")
    }

    /// The worker's lock when its worker is not running: held, none starts meanwhile.
    private func stoppedWorkersLock() throws -> WriterLock? {
        do {
            return try WriterLock(path: directory.workerLock(worker.rawValue))
        } catch is WriterLock.Held {
            return nil
        }
    }

    private func swapIn(holding lock: WriterLock) throws -> String {
        defer { withExtendedLifetime(lock) {} }
        try Replayer.swapIn(rebuilt, over: ProjectionStore.fileURL(name: worker.rawValue, directory: directory.projections))
        return "swapped in with the worker stopped"
    }

    private static func describe(_ reply: Data, of worker: WorkerName) throws -> String {
        let answer = try JSONSerialization.jsonObject(with: reply) as? [String: Any]
        if let error = answer?["error"] as? [String: Any] {
            throw ValidationError("the \(worker) worker did not swap in the rebuild (\(error["code"] as? String ?? "?")): "
                + "\(error["message"] as? String ?? "")")
        }
        guard let result = answer?["result"] as? [String: Any], let checkpoint = result["checkpoint"] as? Int,
              let milliseconds = result["milliseconds"] as? Int else {
            throw ValidationError("the \(worker) worker answered the swap with something else than a swap report")
        }
        return "swapped into the running worker, now at position \(checkpoint), in \(milliseconds) ms"
    }
}
