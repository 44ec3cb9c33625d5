import Metrics
import Synchronization

/// The metric names the API exports on `/metrics`.
enum APIMetrics {
    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    /// A request's counter and timer, made once per (method, route, status): making them asks the
    /// Prometheus registry each time, which cost as much as answering `/health`.
    private static let requestMetrics = Mutex<[RequestKey: (Counter, Metrics.Timer)]>([:])

    static func request(method: String, route: String, status: Int, nanoseconds: Int64) {
        let key = RequestKey(method: method, route: route, status: status)
        let (counter, timer) = requestMetrics.withLock { metrics in
            if let known = metrics[key] { return known }
            let dimensions = [("method", method), ("route", route), ("status", String(status))]
            let made = (Counter(label: "pantry_http_requests_total", dimensions: dimensions),
                        Metrics.Timer(label: "pantry_http_request_duration_seconds", dimensions: dimensions))
            metrics[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(nanoseconds)
    }

    private static let projectionPositions = Mutex<[String: Gauge]>([:])

    /// The position a worker said it has applied, with each worker's gauge made once.
    static func projectionPosition(worker: String, _ position: Int64) {
        projectionPositions.withLock { gauges in
            if let known = gauges[worker] { return known }
            let made = Gauge(label: "pantry_projection_position", dimensions: [("projection", worker)])
            gauges[worker] = made
            return made
        }.record(position)
    }

    private struct CommandKey: Hashable {
        var type: String
        var outcome: String
        var code: String
    }

    private static let commandCounters = Mutex<[CommandKey: Counter]>([:])

    /// `outcome` is accepted, rejected, failed or unavailable; `code` the rejection code or "".
    /// Each counter is made once, as the request metrics are.
    static func command(type: String, outcome: String, code: String) {
        let key = CommandKey(type: type, outcome: outcome, code: code)
        let counter = commandCounters.withLock { counters in
            if let known = counters[key] { return known }
            let made = Counter(label: "pantry_api_commands_total", dimensions: [("type", type), ("outcome", outcome), ("code", code)])
            counters[key] = made
            return made
        }
        counter.increment()
    }
}
