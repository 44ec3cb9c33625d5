import Foundation

/// Latency in each second of the run, coarse enough to keep for every second of a long one: counts
/// in buckets ten to a decade (each about 26% wide) from 10 µs to 100 s. A second's percentiles are
/// read as the upper edge of the bucket they fall in, so they overstate by at most 26%.
package struct LatencyOverTime: Sendable, Equatable {
    static let bucketsPerDecade = 10.0
    static let bucketCount = 70
    /// Per second of the measured drive, the answers counted per bucket.
    package private(set) var seconds: [[UInt32]] = []

    package init() {}

    static func bucket(_ microseconds: UInt64) -> Int {
        let decades = log10(Double(max(microseconds, 10))) - 1
        return min(bucketCount - 1, max(0, Int(decades * bucketsPerDecade)))
    }

    /// The largest latency a bucket holds, in milliseconds.
    static func upperEdgeMs(_ bucket: Int) -> Double {
        pow(10, 1 + Double(bucket + 1) / bucketsPerDecade) / 1000
    }

    package mutating func record(microseconds: UInt64, atSecond second: Int) {
        if second >= seconds.count {
            seconds += Array(repeating: Array(repeating: 0, count: Self.bucketCount), count: second + 1 - seconds.count)
        }
        seconds[second][Self.bucket(microseconds)] += 1
    }

    package mutating func merge(_ other: LatencyOverTime) {
        if other.seconds.count > seconds.count {
            seconds += Array(repeating: Array(repeating: 0, count: Self.bucketCount), count: other.seconds.count - seconds.count)
        }
        for (second, counts) in other.seconds.enumerated() {
            for (bucket, count) in counts.enumerated() where count > 0 { seconds[second][bucket] += count }
        }
    }

    /// The latency (ms) under which `percentile` of the answers of `range`'s seconds came; nil without answers.
    package func percentile(_ percentile: Double, seconds range: Range<Int>) -> Double? {
        var counts = Array(repeating: UInt64(0), count: Self.bucketCount)
        for second in range.clamped(to: 0..<seconds.count) {
            for (bucket, count) in seconds[second].enumerated() { counts[bucket] += UInt64(count) }
        }
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = UInt64((Double(total) * percentile / 100).rounded(.up))
        var seen: UInt64 = 0
        for (bucket, count) in counts.enumerated() {
            seen += count
            if seen >= max(rank, 1) { return Self.upperEdgeMs(bucket) }
        }
        return Self.upperEdgeMs(Self.bucketCount - 1)
    }

    package func answers(seconds range: Range<Int>) -> Int {
        range.clamped(to: 0..<seconds.count).reduce(0) { $0 + Int(seconds[$1].reduce(0) { $0 + UInt64($1) }) }
    }
}
