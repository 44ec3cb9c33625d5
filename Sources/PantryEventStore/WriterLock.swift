import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One process per role on a data directory (the core writing the log, each worker, the fetch
/// worker): an exclusive `flock` on a file there, released by the kernel when the process dies, so
/// a SIGKILLed process never leaves a stale lock behind.
package final class WriterLock {
    private let descriptor: Int32

    package struct Held: Error, CustomStringConvertible {
        package var path: String
        package var description: String { "another pantry process of this role runs on this data directory (lock \(path) is held)" }
    }

    package init(path: String) throws {
        // The descriptor is stored only once the lock is held: a class whose initialiser throws
        // after storing every property still runs `deinit`, which would close it a second time.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw Held(path: path)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
