import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where scrypt runs: threads of its own, never the event loops nor Swift's cooperative pool, and
/// a bounded queue in front of them. 200 parallel wrong-password logins kept every core busy on
/// scrypt and an authenticated read waited 7.37 s; now at most `threads` hashes run (one core is
/// always left to serve requests) and at most `queueLimit` wait, the rest answered 503 at once.
final class PasswordHashingPool: Sendable {
    struct Busy: Error {}

    private struct Job {
        var work: @Sendable () -> Void
    }

    private let jobs = Mutex<[Job]>([])
    private let available = DispatchSemaphore(value: 0)
    let queueLimit: Int

    init(threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), queueLimit: Int = 32) {
        self.queueLimit = queueLimit
        for index in 0..<threads {
            let thread = Thread { [self] in
                Self.yieldToRequests()
                while true {
                    available.wait()
                    let job = jobs.withLock { $0.removeFirst() }
                    job.work()
                }
            }
            thread.name = "password-hashing-\(index)"
            thread.start()
        }
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
    var queued: Int { jobs.withLock { $0.count } }

    /// Runs `work` on the pool; `Busy` at once when `queueLimit` jobs already wait.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let admitted = jobs.withLock { jobs in
                guard jobs.count < queueLimit else { return false }
                jobs.append(Job { continuation.resume(with: Result { try work() }) })
                return true
            }
            if admitted { available.signal() } else { continuation.resume(throwing: Busy()) }
        }
    }
}
