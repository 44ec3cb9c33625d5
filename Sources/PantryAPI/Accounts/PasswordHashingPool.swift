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
final class PasswordHashingPool: Sendable {
    struct Busy: Error {}

    private let pool: NIOThreadPool
    /// Jobs admitted that no thread has taken yet.
    private let waiting = Atomic<Int>(0)
    let queueLimit: Int

    init(threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), queueLimit: Int = 32) {
        pool = NIOThreadPool(numberOfThreads: threads)
        self.queueLimit = queueLimit
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
    var queued: Int { waiting.load(ordering: .relaxed) }

    /// Runs `work` on the pool; `Busy` at once when `queueLimit` jobs already wait.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        // Started on the first hash rather than in `init`: a pool never used holds no thread.
        pool.start()
        return try await withCheckedThrowingContinuation { continuation in
            let admitted = waiting.wrappingAdd(1, ordering: .relaxed).newValue <= queueLimit
            guard admitted else {
                waiting.wrappingSubtract(1, ordering: .relaxed)
                return continuation.resume(throwing: Busy())
            }
            // `submit`, not `runIfActive`: the count of waiting jobs is kept exact, cancelled or not.
            pool.submit { [self] state in
                waiting.wrappingSubtract(1, ordering: .relaxed)
                guard case .active = state else { return continuation.resume(throwing: CancellationError()) }
                // Every job: the pool's threads are NIO's, started without it (one call, against ~90 ms of scrypt).
                Self.yieldToRequests()
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
