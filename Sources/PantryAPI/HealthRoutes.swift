import Foundation
import Hummingbird
import Prometheus

/// Liveness, readiness and metrics: unauthenticated, for the process supervisor and Prometheus.
struct HealthRoutes {
    /// The core sends a heartbeat every 200 ms; this much silence means it is gone or unreachable.
    static let feedSilenceLimit: Duration = .seconds(2)

    let accounts: AccountDirectory
    let registry: PrometheusCollectorRegistry

    func register(on router: Router<APIRequestContext>) {
        router.get("health") { _, _ in JSONResponse.make(["status": "ok"]) }
        router.get("ready") { _, _ in try ready() }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }

    struct Readiness: Encodable {
        var status: String
        var position: Int64
        var head: Int64
    }

    private func ready() throws -> Response {
        let progress = accounts.progress
        guard let seen = progress.lastFeedMessage else {
            throw Problem(.serviceUnavailable, code: "not_ready", detail: "no message from the core's event feed yet")
        }
        let silence = ContinuousClock.now - seen
        guard silence <= Self.feedSilenceLimit else {
            let seconds = Double(silence.components.seconds) + Double(silence.components.attoseconds) / 1e18
            throw Problem(.serviceUnavailable, code: "not_ready",
                          detail: "no heartbeat from the core's event feed for \(Int(seconds.rounded())) s (accounts at position \(progress.position))")
        }
        return JSONResponse.make(Readiness(status: "ready", position: progress.position, head: progress.announcedHead))
    }
}
