import Metrics

/// The metric names the API exports on `/metrics`.
enum APIMetrics {
    static func request(method: String, route: String, status: Int, nanoseconds: Int64) {
        Counter(label: "pantry_http_requests_total",
                dimensions: [("method", method), ("route", route), ("status", String(status))]).increment()
        Metrics.Timer(label: "pantry_http_request_duration_seconds",
                      dimensions: [("method", method), ("route", route), ("status", String(status))])
            .recordNanoseconds(nanoseconds)
    }

    /// `outcome` is accepted, rejected, failed or unavailable; `code` the rejection code or "".
    static func command(type: String, outcome: String, code: String) {
        Counter(label: "pantry_api_commands_total", dimensions: [("type", type), ("outcome", outcome), ("code", code)])
            .increment()
    }
}
