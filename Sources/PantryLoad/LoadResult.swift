import Foundation
import Histogram

/// Everything a run measured, written as the `--output` JSON document and summarised on stdout.
package struct LoadResult: Codable, Sendable {
    package struct Settings: Codable, Sendable {
        package var url: String
        package var users: Int
        package var clients: Int
        package var durationSeconds: Double?
        package var requests: Int?
        /// Requests/s of a fixed-rate run; nil when every client sends as fast as it is answered.
        package var rate: Double?
        package var mix: WorkloadMix
        package var seed: UInt64
        package var runPrefix: String
        /// A ramp's rates and how long each lasted; nil for a run at one rate.
        package var ramp: [Double]?
        package var stepSeconds: Double?
        /// The pace the run assumed: at most this many points per user (`LoadConfiguration.pointsPerUser`).
        package var pointsPerUser: Int?

        package init(url: String, users: Int, clients: Int, durationSeconds: Double?, requests: Int?, rate: Double?,
                    mix: WorkloadMix, seed: UInt64, runPrefix: String) {
            self.url = url
            self.users = users
            self.clients = clients
            self.durationSeconds = durationSeconds
            self.requests = requests
            self.rate = rate
            self.mix = mix
            self.seed = seed
            self.runPrefix = runPrefix
        }
    }

    package struct Machine: Codable, Sendable {
        package var cores: Int
        package var memoryGiB: Double
        package var os: String

        package init(cores: Int, memoryGiB: Double, os: String) {
            self.cores = cores
            self.memoryGiB = memoryGiB
            self.os = os
        }

        package static var current: Machine {
            let info = ProcessInfo.processInfo
            return Machine(cores: info.activeProcessorCount, memoryGiB: (Double(info.physicalMemory) / 1_073_741_824).rounded(),
                           os: info.operatingSystemVersionString)
        }
    }

    package struct Registration: Codable, Sendable {
        package var users: Int
        package var seconds: Double
        package var usersPerSecond: Double
        package var retries: Int

        package init(users: Int, seconds: Double, usersPerSecond: Double, retries: Int) {
            self.users = users
            self.seconds = seconds
            self.usersPerSecond = usersPerSecond
            self.retries = retries
        }
    }

    /// Latency in milliseconds.
    package struct Percentiles: Codable, Sendable {
        package var count: UInt64
        package var mean: Double
        package var p50: Double
        package var p90: Double
        package var p99: Double
        package var p999: Double
        package var max: Double

        package init(microseconds histogram: Histogram<UInt64>) {
            func ms(_ value: UInt64) -> Double { Double(value) / 1000 }
            count = histogram.totalCount
            mean = histogram.totalCount == 0 ? 0 : histogram.mean / 1000
            p50 = ms(histogram.valueAtPercentile(50))
            p90 = ms(histogram.valueAtPercentile(90))
            p99 = ms(histogram.valueAtPercentile(99))
            p999 = ms(histogram.valueAtPercentile(99.9))
            max = ms(histogram.max)
        }
    }

    package struct KindFigures: Codable, Sendable {
        package var requests: Int
        package var perSecond: Double
        package var latencyMs: Percentiles
    }

    package struct Drive: Codable, Sendable {
        package var seconds: Double
        package var requests: Int
        package var perSecond: Double
        package var acceptedIncrementsPerSecond: Double
        package var kinds: [String: KindFigures]
        package var errors: [String: Int]
        package var retries: Int
        package var replayed: Int
        package var doubled: Int
        package var indefinite: Int
        /// Answered requests in each second of the run.
        package var perSecondSeries: [Int]
        /// The latency of each second's answers (all kinds; buckets 26% wide, see `LatencyOverTime`).
        package var latencySeries: [SecondLatency]
    }

    package struct SecondLatency: Codable, Sendable, Equatable {
        package var second: Int
        package var p50Ms: Double
        package var p99Ms: Double

        package init(second: Int, p50Ms: Double, p99Ms: Double) { self.second = second; self.p50Ms = p50Ms; self.p99Ms = p99Ms }
    }

    /// One step of a ramp: the rate asked for, what was answered, and how fast.
    package struct Step: Codable, Sendable, Equatable {
        package var rate: Double
        package var answeredPerSecond: Double
        package var p50Ms: Double?
        package var p99Ms: Double?

        static func figures(ramp: [Double], stepSeconds: Double, overTime: LatencyOverTime) -> [Step] {
            ramp.enumerated().map { index, rate in
                // Whole seconds inside the step: its first and last are shared with its neighbours.
                let start = Int((Double(index) * stepSeconds).rounded(.up)), end = Int((Double(index + 1) * stepSeconds).rounded(.down))
                let seconds = start..<max(start, end)
                return Step(rate: rate, answeredPerSecond: Double(overTime.answers(seconds: seconds)) / Double(max(seconds.count, 1)),
                            p50Ms: overTime.percentile(50, seconds: seconds), p99Ms: overTime.percentile(99, seconds: seconds))
            }
        }
    }

    /// How far the leaderboard trailed the log, in positions.
    package struct Lag: Codable, Sendable {
        package struct Figures: Codable, Sendable {
            package var samples: UInt64
            package var mean: Double
            package var p99: UInt64
            package var max: UInt64

            package init(_ histogram: Histogram<UInt64>) {
                samples = histogram.totalCount
                mean = histogram.totalCount == 0 ? 0 : histogram.mean
                p99 = histogram.valueAtPercentile(99)
                max = histogram.max
            }
        }

        /// At each leaderboard read: the highest position seen accepted so far minus the read's position.
        package var readReplies: Figures
        /// Sampled every 200 ms from `/ready`: the head the core announced minus the leaderboard worker's position.
        package var ready: Figures
        /// The last position a client saw accepted.
        package var lastAccepted: Int64
        /// From the last answer of the drive phase until the leaderboard had applied `lastAccepted`;
        /// nil when it did not within 60 s or could not be read.
        package var catchUpMilliseconds: Double?

        package init(readReplies: Figures, ready: Figures, lastAccepted: Int64, catchUpMilliseconds: Double?) {
            self.readReplies = readReplies
            self.ready = ready
            self.lastAccepted = lastAccepted
            self.catchUpMilliseconds = catchUpMilliseconds
        }
    }

    /// The check passed and every command's outcome is known.
    package var passed: Bool
    /// When the run began (ISO 8601, UTC) and which `pantry` ran it: runs compared later say so.
    package var startedAt: String?
    package var version: String?
    /// A ramp's steps; nil for a run at one rate.
    package var steps: [Step]?
    /// `--fail-on`'s terms and what was measured for each; nil without `--fail-on`.
    package var thresholds: [Thresholds.Verdict]?
    /// Users deleted by `--cleanup` after the check; nil without it.
    package var cleanedUp: Int?
    package var settings: Settings
    package var machine: Machine
    package var registration: Registration
    package var drive: Drive
    package var lag: Lag
    package var check: LedgerCheck

    package init(settings: Settings, machine: Machine, registration: Registration, seconds: Double,
                stats: RunStats, lag: Lag, check: LedgerCheck) {
        var kinds: [String: KindFigures] = [:]
        for (kind, histogram) in stats.latency {
            let count = stats.completed[kind] ?? 0
            kinds[kind.rawValue] = KindFigures(requests: count, perSecond: Double(count) / seconds,
                                               latencyMs: Percentiles(microseconds: histogram))
        }
        let requests = stats.completed.values.reduce(0, +)
        let increments = stats.completed[.increment] ?? 0
        drive = Drive(seconds: seconds, requests: requests, perSecond: Double(requests) / seconds,
                      acceptedIncrementsPerSecond: Double(increments) / seconds, kinds: kinds, errors: stats.errors,
                      retries: stats.retries, replayed: stats.replayed, doubled: stats.doubled,
                      indefinite: stats.indefinite, perSecondSeries: stats.perSecond,
                      latencySeries: stats.overTime.seconds.indices.compactMap { second in
                          guard let p50 = stats.overTime.percentile(50, seconds: second..<second + 1),
                                let p99 = stats.overTime.percentile(99, seconds: second..<second + 1) else { return nil }
                          return SecondLatency(second: second, p50Ms: p50, p99Ms: p99)
                      })
        self.settings = settings
        self.machine = machine
        self.registration = registration
        self.lag = lag
        self.check = check
        passed = check.passed && stats.indefinite == 0 && stats.doubled == 0
    }

    package var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Numbers, strings and containers of them: encoding cannot fail.
        return try! encoder.encode(self)
    }

    /// The human summary printed on stdout.
    package var summary: String {
        func f(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
        let mode = settings.ramp.map { "a ramp of \($0.map { f($0) }.joined(separator: ", ")) requests/s, \(f(settings.stepSeconds ?? 0)) s each" }
            ?? settings.rate.map { "fixed rate \(f($0)) requests/s" } ?? "as fast as answered"
        var lines = [
            "registration  \(registration.users) users in \(f(registration.seconds, 1)) s (\(f(registration.usersPerSecond)) users/s, \(registration.retries) retries)",
            "drive         \(f(drive.seconds, 1)) s, \(settings.clients) clients, \(mode), seed \(settings.seed)"
                + (settings.pointsPerUser.map { ", at most \($0) points per user" } ?? ""),
            "              \(drive.requests) requests, \(f(drive.perSecond)) requests/s; \(f(drive.acceptedIncrementsPerSecond)) accepted increments/s",
            "  kind         requests   requests/s   p50 ms   p90 ms   p99 ms p99.9 ms   max ms",
        ]
        for kind in OperationKind.allCases {
            guard let k = drive.kinds[kind.rawValue] else { continue }
            let l = k.latencyMs
            let cells = [f(k.perSecond, 1), f(l.p50, 2), f(l.p90, 2), f(l.p99, 2), f(l.p999, 2), f(l.max, 2)]
            lines.append("  " + kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(k.requests).leftPadded(11) + cells[0].leftPadded(13)
                + cells.dropFirst().map { $0.leftPadded(9) }.joined())
        }
        if let steps {
            lines.append("  step     rate/s   answered/s   p50 ms   p99 ms")
            for (index, step) in steps.enumerated() {
                let latency = [step.p50Ms, step.p99Ms].map { $0.map { f($0, 2) } ?? "-" }
                lines.append("  " + String(index + 1).leftPadded(4) + f(step.rate).leftPadded(11) + f(step.answeredPerSecond).leftPadded(13)
                    + latency.map { $0.leftPadded(9) }.joined())
            }
        }
        let errors = drive.errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        lines.append("errors        \(errors.isEmpty ? "none" : errors.joined(separator: ", "))")
        lines.append("retries       \(drive.retries) (\(drive.replayed) answered as replays); doubled points \(drive.doubled); outcomes unknown \(drive.indefinite)")
        lines.append("lag           at reads: mean \(f(lag.readReplies.mean, 1)), p99 \(lag.readReplies.p99), max \(lag.readReplies.max) positions; /ready head: mean \(f(lag.ready.mean, 1)), max \(lag.ready.max) (\(lag.ready.samples) samples)")
        let catchUp = lag.catchUpMilliseconds.map { "\(f($0, 1)) ms after the last answer" } ?? "not reached"
        lines.append("              leaderboard at the last accepted position \(lag.lastAccepted): \(catchUp)")
        for verdict in thresholds ?? [] {
            lines.append("threshold     \(verdict.term): measured \(f(verdict.measured, 2)): \(verdict.met ? "met" : "MISSED")")
        }
        if let cleanedUp { lines.append("cleanup       \(cleanedUp) users deleted") }
        let verdict = passed ? "PASSED" : "FAILED"
        lines.append("check         \(verdict): \(check.users) users, \(check.expectedTotal) points earned, \(check.actualTotal) on the leaderboard, \(check.mismatchedUsers) users differ")
        for d in check.differences {
            lines.append("              \(d.username): expected \(d.expected), leaderboard \(d.actual.map(String.init) ?? "unreadable")")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
