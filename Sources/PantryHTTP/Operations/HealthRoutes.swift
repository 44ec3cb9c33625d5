import Foundation
import Hummingbird
import Metrics
import Prometheus
import PantryWire

/// Liveness, readiness (each part the API needs, named) and metrics: unauthenticated, for the process supervisor and Prometheus.
struct HealthRoutes {
    /// The core sends a heartbeat every 200 ms; this much silence means it is gone or unreachable.
    static let feedSilenceLimit: Duration = .seconds(2)
    /// A worker that takes longer than this to say where it is counts as unreachable.
    static let workerTimeout: Duration = .seconds(1)

    /// Liveness is asked often and never changes: encoded once (an encoder per probe cost a
    /// fifth of what the API spends on it).
    private static let healthy = ByteBuffer(string: #"{"status":"ok"}"#)

    let feed: any FeedPort
    let queries: WorkerQueries
    let recipes: RecipeSource
    let registry: PrometheusCollectorRegistry
    /// Said in every readiness answer: an API on an open network (`--insecure-network`) is ready,
    /// but its operator is told each time, not once at start (`NetworkProtection`'s name).
    let network: String

    func register(on router: Router<APIRequestContext>) {
        router.get("health") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: Self.healthy))
        }
        router.get("ready") { _, _ in try await ready() }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }

    struct Readiness: Encodable {
        var status: String
        var position: Int64
        var head: Int64
        var workers: [String: WorkerProgress]
        /// Every part the API needs, by name: "up", or why not.
        var parts: [String: String]
        var network: String
    }

    struct WorkerProgress: Encodable {
        var position: Int64
        /// Events the worker has still to apply, against the head the core announced.
        var lag: Int64
    }

    private struct StatusReply: Decodable {
        var position: Int64
    }

    private func ready() async throws -> Response {
        let progress = feed.progress
        guard let seen = progress.lastFeedMessage else {
            throw Problem(.notReady, detail: "not ready: core: no message from the core's event feed yet")
        }
        let silence = ContinuousClock.now - seen
        guard silence <= Self.feedSilenceLimit else {
            let seconds = Double(silence.components.seconds) + Double(silence.components.attoseconds) / 1e18
            throw Problem(.notReady,
                          detail: "not ready: core: no heartbeat from the core's event feed for \(Int(seconds.rounded())) s (the API's read models at position \(progress.position))")
        }
        let head = max(progress.announcedHead, progress.position)
        var workers: [String: WorkerProgress] = [:]
        var down: [String: String] = [:]
        // Commands would fail (503 `storage_error` or `storage_unavailable`): a balancer should
        // send them elsewhere, and the operator reads why.
        if let storage = progress.coreStorage { down["core"] = "writes to the log fail: \(storage)" }
        async let fetch = recipes.unavailability(within: Self.workerTimeout)
        await withTaskGroup(of: (String, Int64?).self) { group in
            for worker in WorkerName.allCases {
                group.addTask {
                    let reply = try? await queries.ask(QueryRequest(.status(worker)), timeout: Self.workerTimeout)
                    return (worker.rawValue, reply.flatMap { try? JSONDecoder().decode(StatusReply.self, from: $0).position })
                }
            }
            for await (worker, position) in group {
                guard let position else { down[worker] = "the \(worker) worker did not answer in 1 s"; continue }
                let lag = max(0, head - position)
                workers[worker] = WorkerProgress(position: position, lag: lag)
                Gauge(label: "pantry_projection_lag_events", dimensions: [("projection", worker)]).record(lag)
            }
        }
        if let reason = await fetch { down["fetch"] = reason }
        guard down.isEmpty else {
            throw Problem(.notReady, detail: "not ready: " + down.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        }
        var parts = ["core": "up", "fetch": "up"]
        for worker in workers.keys { parts[worker] = "up" }
        return JSONResponse.make(Readiness(status: "ready", position: progress.position, head: head, workers: workers, parts: parts, network: network))
    }
}
