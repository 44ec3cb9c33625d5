import Foundation
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where scrypt runs: a `NIOThreadPool` of its own, never the event loops, Swift's cooperative pool
/// nor NIO's shared pool for blocking work, and a bounded queue in front of it. 200 parallel
/// wrong-password logins kept every core busy on scrypt and an authenticated read waited 7.37 s;
/// now at most `threads` hashes run (one core is always left to serve requests) and at most
/// `queueLimit` wait, the rest answered 503 at once.
/// The API lets each client address hold one place (`AccountRoutes.admitted`), so the queue should
/// be as long as the addresses it is fair to, and no longer than a wait a client sits through:
/// `limitQueue` sets it from the time one hash takes, and each hash done moves it (a waiting job
/// costs no memory to speak of; scrypt's 32 MiB is taken only while it runs).
final class PasswordHashingPool: Sendable {
    struct Busy: Error {}

    private struct Job {
        var client: String?
        /// A known device's log-in (`KnownDevices`): ahead of every other job.
        var first = false
        var work: @Sendable () -> Void
        var refuse: @Sendable () -> Void
    }

    /// The jobs waiting, and how many places each client was given in the current minute.
    private struct Queue {
        var jobs: [Job] = []
        var places: [String: Int] = [:]
        var minuteStarted = ContinuousClock.now
        /// The wait the queue is sized for (`limitQueue`), and the recent hashes' mean time, which
        /// its length follows above its floor: sized once from one hash at start, it kept that
        /// length whatever the hashes took later.
        var wait: Duration?
        var recentHash = Duration.zero

        mutating func count(_ client: String?, now: ContinuousClock.Instant) -> Int {
            if now - minuteStarted > .seconds(60) || places.count > 100_000 {
                places = [:]
                minuteStarted = now
            }
            return client.map { places[$0, default: 0] } ?? 0
        }
    }

    private enum Admission {
        case queued
        /// Queued in the place of a job now refused.
        case replacing(Job)
        case busy
    }

    private let jobs = Mutex(Queue())
    private let pool: NIOThreadPool
    private let limit: Atomic<Int>
    let threads: Int
    var queueLimit: Int { limit.load(ordering: .relaxed) }
    /// The clock of the hashes' times (a test's own moves only when told).
    private let now: @Sendable () -> ContinuousClock.Instant

    init(threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), queueLimit: Int = 32,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        pool = NIOThreadPool(numberOfThreads: threads)
        limit = Atomic(queueLimit)
        self.threads = threads
        self.now = now
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// The hashing threads run at nice 10: they still use an idle core fully, but a thread that
    /// serves a request (event loops, the workers, the core) gets the CPU first. Under the
    /// 200-address log-in flood of ops/bench-abuse one core hashed for the whole 10 s, and an
    /// authenticated read's p99 was 6.3x its rest (after the tarpit; 27x before it). On Linux the
    /// nice value is per thread, and `who` 0 is the calling thread; raising it needs no privilege.
    static let hashingNice: Int32 = 10

    private static func yieldToRequests() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, hashingNice)
        #endif
    }

    /// Jobs waiting for a thread.
    var queued: Int { jobs.withLock { $0.jobs.count } }

    /// As many jobs as the threads finish in `wait` when each takes `oneHash`, from 32 to 1,024; from
    /// then on, when each takes what the recent hashes took. Not fewer than 32: newcomers take the
    /// places of repeat clients, and with 4 places 9 honest log-ins at once refused each other;
    /// with 16, parallel in-process tests' registrations were refused.
    @discardableResult
    func limitQueue(toWait wait: Duration, oneHash: Duration) -> Int {
        jobs.withLock { queue in
            queue.wait = wait
            queue.recentHash = oneHash
        }
        return resize(wait: wait, oneHash: oneHash)
    }

    @discardableResult
    private func resize(wait: Duration, oneHash: Duration) -> Int {
        let jobs = Int((Double(threads) * (wait / max(oneHash, .milliseconds(1)))).rounded(.down))
        let bounded = min(max(jobs, 32), 1_024)
        limit.store(bounded, ordering: .relaxed)
        return bounded
    }

    /// A hash took `took`: the queue follows the recent mean (a quarter of the weight to the newest).
    private func observe(_ took: Duration) {
        let sizing = jobs.withLock { queue -> (wait: Duration, oneHash: Duration)? in
            guard let wait = queue.wait else { return nil }
            queue.recentHash = (queue.recentHash * 3 + took) / 4
            return (wait, queue.recentHash)
        }
        if let sizing { resize(wait: sizing.wait, oneHash: sizing.oneHash) }
    }

    /// Runs `work` on the pool for `client`; `Busy` at once when `queueLimit` jobs already wait,
    /// unless one of them is a client's that had more places this minute than `client`: that one
    /// is refused (`Busy`) and `client` takes its place at the back. A few dozen addresses sending
    /// log-ins as fast as they are answered kept the queue full and 0 of 9 honest log-ins got a
    /// place; this way a newcomer always gets one while the queue is held by repeat clients.
    ///
    /// A `first` job (a known device's log-in) goes ahead of the others, and when the queue is full
    /// takes the place of the last of them: under a flood from 200 addresses a returning cook's
    /// log-in waited behind 32 guesses (2.9-3.6 s each, issue 45).
    func run<T: Sendable>(client: String?, first: Bool = false, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        // Started on the first hash rather than in `init`: a pool never used holds no thread.
        pool.start()
        return try await withCheckedThrowingContinuation { continuation in
            let job = Job(client: client, first: first, work: { continuation.resume(with: Result { try work() }) },
                          refuse: { continuation.resume(throwing: Busy()) })
            let now = ContinuousClock.now
            let admission = jobs.withLock { queue -> Admission in
                let had = queue.count(client, now: now)
                func give() { if let client { queue.places[client] = had + 1 } }
                if first {
                    let others = queue.jobs.firstIndex { !$0.first } ?? queue.jobs.endIndex
                    guard queue.jobs.count >= queueLimit else {
                        queue.jobs.insert(job, at: others)
                        give()
                        return .queued
                    }
                    guard others < queue.jobs.endIndex else { return .busy }
                    let refused = queue.jobs.removeLast()
                    queue.jobs.insert(job, at: others)
                    give()
                    return .replacing(refused)
                }
                guard queue.jobs.count >= queueLimit else {
                    queue.jobs.append(job)
                    give()
                    return .queued
                }
                // Never a known device's: only another guess gives its place up.
                guard let index = queue.jobs.indices.filter({ !queue.jobs[$0].first }).max(by: { queue.places[queue.jobs[$0].client ?? "", default: 0]
                                                                < queue.places[queue.jobs[$1].client ?? "", default: 0] }),
                      queue.places[queue.jobs[index].client ?? "", default: 0] > had else { return .busy }
                let refused = queue.jobs.remove(at: index)
                queue.jobs.append(job)
                give()
                return .replacing(refused)
            }
            switch admission {
            case .queued:
                // One turn per job queued: a turn runs the job first in line then, so a job that
                // gave its place to another is not run and the count stays right.
                pool.submit { [self] state in
                    guard let next = jobs.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) else { return }
                    guard case .active = state else { return next.refuse() }
                    let started = self.now()
                    // Every job: the pool's threads are NIO's, started without it (one call, against ~90 ms of scrypt).
                    Self.yieldToRequests()
                    next.work()
                    observe(self.now() - started)
                }
            case .replacing(let refused): refused.refuse()
            case .busy: job.refuse()
            }
        }
    }
}
