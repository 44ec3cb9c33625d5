import Foundation
import Synchronization

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
