import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One writer per log: an exclusive `flock` on a file beside it, released by the kernel when the
/// process dies, so a SIGKILLed writer never leaves a stale lock behind.
public final class WriterLock {
    private let descriptor: Int32

    public struct Held: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "another pantry process is writing this log (lock \(path) is held)" }
    }

    public init(path: String) throws {
        // The descriptor is stored only once the lock is held: a class whose initialiser throws
        // after storing every property still runs `deinit`, which would close it a second time.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw Held(path: path)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
