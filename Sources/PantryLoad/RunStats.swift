import Curl
import Histogram

/// What one client saw while driving the load; the clients' are merged at the end.
package struct RunStats: Sendable {
    /// Microseconds from the request's scheduled send time to its answer (retries included).
    package private(set) var latency: [OperationKind: Histogram<UInt64>] = [:]
    /// Requests answered as expected, per kind.
    package private(set) var completed: [OperationKind: Int] = [:]
    /// Every unexpected answer or transport failure, by kind (see `ErrorKind`).
    package private(set) var errors: [String: Int] = [:]
    /// Requests sent again (same Idempotency-Key) after a transport failure or a 503.
    package var retries = 0
    /// Retries answered with `Idempotent-Replayed: true`: the first attempt had gone through.
    package var replayed = 0
    /// Repeats that were accepted: a point earned twice.
    package var doubled = 0
    /// Commands whose outcome stayed unknown after every retry.
    package var indefinite = 0
    /// Positions of the log the leaderboard had not applied when a read was answered, counted from
    /// the highest position any client had seen accepted by then.
    package private(set) var readLag = Self.histogram()
    /// Answered requests per second of the drive phase.
    package private(set) var perSecond: [Int] = []
    /// Their latency, second by second.
    package private(set) var overTime = LatencyOverTime()

    package init() {}

    static func histogram() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    }

    package mutating func record(_ kind: OperationKind, microseconds: UInt64, atSecond second: Int) {
        latency[kind, default: Self.histogram()].record(min(microseconds, 60_000_000))
        completed[kind, default: 0] += 1
        if second >= perSecond.count { perSecond += Array(repeating: 0, count: second + 1 - perSecond.count) }
        perSecond[second] += 1
        overTime.record(microseconds: microseconds, atSecond: second)
    }

    package mutating func error(_ kind: String) {
        errors[kind, default: 0] += 1
    }

    package mutating func lag(_ positions: Int64) {
        readLag.record(UInt64(min(max(positions, 0), 60_000_000)))
    }

    package mutating func merge(_ other: RunStats) {
        for (kind, histogram) in other.latency { latency[kind, default: Self.histogram()].add(histogram) }
        for (kind, count) in other.completed { completed[kind, default: 0] += count }
        for (kind, count) in other.errors { errors[kind, default: 0] += count }
        retries += other.retries
        replayed += other.replayed
        doubled += other.doubled
        indefinite += other.indefinite
        readLag.add(other.readLag)
        if other.perSecond.count > perSecond.count {
            perSecond += Array(repeating: 0, count: other.perSecond.count - perSecond.count)
        }
        for (second, count) in other.perSecond.enumerated() { perSecond[second] += count }
        overTime.merge(other.overTime)
    }
}

/// How an unexpected answer is counted: the status and the problem's code, or the transport failure.
package enum ErrorKind {
    package static func http(_ status: Int, code: String?) -> String {
        "HTTP \(status) \(code ?? "-")"
    }

    package static func transport(_ error: CurlError) -> String {
        switch error.kind {
        case .timeout: "transport timeout"
        case .connectionFailed: "transport connection failed"
        case .other: "transport error \(error.code)"
        }
    }
}
