import Logging
import Synchronization
import ZeroMQ

extension BusEndpoints {
    /// The process's ZeroMQ context, with this bus's security. A peer the ZAP handler refuses is
    /// logged as a warning: once a minute per address and reason, since a refused libzmq client
    /// retries every 100 ms and a prober may try thousands of times.
    package func makeContext(logger: Logger) throws -> ZMQContext {
        if security == .plain, usesTCP {
            logger.warning("tcp:// endpoints without CURVE (insecure-network): anyone on the network may read and send")
        }
        let lastLogged = Mutex<[String: ContinuousClock.Instant]>([:])
        return try ZMQContext(security: security) { refusal in
            let now = ContinuousClock.now
            let due = lastLogged.withLock { logged in
                let key = "\(refusal.address) \(refusal.reason)"
                if let last = logged[key], now - last < .seconds(60) { return false }
                if logged.count >= 1024 { logged.removeAll() }
                logged[key] = now
                return true
            }
            guard due else { return }
            logger.warning("refused a peer on the internal network", metadata: [
                "address": "\(refusal.address)", "endpoint": "\(refusal.endpoint)", "reason": "\(refusal.reason)"])
        }
    }
}
