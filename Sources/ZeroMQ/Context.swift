import CZeroMQ
import Foundation

/// A libzmq context: the I/O threads and the registry of sockets.
///
/// Sendable because libzmq contexts are thread-safe; the handle never changes after `init`.
/// Every ``ZMQSocket`` retains its context, so `deinit` (which runs `zmq_ctx_term`) only
/// happens once all sockets are closed, and waits at most for their linger.
package final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// What its sockets do on `tcp://` endpoints; with CURVE, the context runs its ZAP handler.
    package let security: ZMQNetworkSecurity

    /// `onRefusal` hears of every peer the ZAP handler turns away (on the handler's thread).
    package init(ioThreads: Int = 1, security: ZMQNetworkSecurity = .plain,
                 onRefusal: (@Sendable (ZMQRefusal) -> Void)? = nil) throws {
        guard let threadCount = Int32(exactly: ioThreads) else {
            throw ZMQError.failed(operation: "zmq_ctx_set(ZMQ_IO_THREADS, \(ioThreads))", code: EINVAL)
        }
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        guard zmq_ctx_set(handle, ZMQ_IO_THREADS, threadCount) == 0 else {
            let error = ZMQError.last("zmq_ctx_set(ZMQ_IO_THREADS, \(ioThreads))")
            zmq_ctx_term(handle)
            throw error
        }
        if case .curve(let policy) = security {
            do {
                try ZAPHandler.start(context: handle, policy: policy, onRefusal: onRefusal)
            } catch {
                zmq_ctx_term(handle)
                throw error
            }
        }
        self.handle = handle
        self.security = security
    }

    /// Makes every blocking call on this context's sockets, in any thread, fail with
    /// ``ZMQError/terminated(operation:)``, and every later call on them too.
    /// Owners of sockets should then close them; the context is freed when the last reference goes.
    package func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
