import PantryDomain
import PantryTokens
import PantryRandom

/// What `pantry loadtest` is asked to do.
package struct LoadConfiguration: Sendable {
    package var url: String
    package var users: Int
    package var clients: Int
    /// Seconds of the drive phase; with `requests` too, whichever ends first.
    package var duration: Double?
    /// Requests of the drive phase, shared evenly by the clients.
    package var requests: Int?
    /// Requests/s over all clients for a fixed-rate run; nil: every client sends as fast as it is answered.
    package var rate: Double?
    package var mix: WorkloadMix
    package var seed: UInt64
    /// Starts every username, Idempotency-Key and ingredient of the run, so runs never collide.
    package var runPrefix: String
    package var password: String
    /// Seconds a request may take before it counts as a transport timeout.
    package var timeout: Double
    /// Seconds of load at the start of the drive whose latencies and rates are not counted
    /// (connections, caches and the JIT-less runtime warm up); its points are checked like the rest.
    package var warmUp: Double = 0
    /// The most points one user earns in the run: the burst of the core's pace of points, so the
    /// run stays within it (`points-pace`; `Paces.human` unless the deployment sets another).
    package var pointsPerUser = Paces.human.points.burst
    /// Minutes of the timers the users start before their points: a whole day, so that a long
    /// run's points all fall within their recipe's cooking.
    package static let cookingMinutes = 1440
    /// Delete every test user after the check.
    package var cleanup = false
    /// A ramp: fixed rates (requests/s) one after the other, `stepSeconds` each, to find where the
    /// latency breaks; nil for one rate or none. The warm-up runs at the first step's rate.
    package var ramp: [Double]?
    package var stepSeconds: Double = 20
    /// Signs the operator's proof on registrations, log-ins and deletions when the load test can read
    /// the API's token key: its thousands of users from one address then pass the per-address limits.
    package var operatorSigner: TokenSigner?
    /// A PEM file of the certificates an HTTPS deployment's chain must end in instead of the system's
    /// (`--cacert`: a self-signed balancer's own certificate); verified either way.
    package var trustedCertificates: String?

    /// When each request is due; nil when every client sends as fast as it is answered.
    package var schedule: Schedule? {
        if let ramp {
            let steps = [warmUp > 0 ? Schedule.Step(rate: ramp[0], seconds: warmUp) : nil].compactMap { $0 }
                + ramp.map { Schedule.Step(rate: $0, seconds: stepSeconds) }
            return Schedule(steps: steps, clients: clients)
        }
        return rate.map { Schedule(rate: $0, clients: clients) }
    }

    package init(url: String, users: Int, clients: Int, duration: Double?, requests: Int?, rate: Double?,
                mix: WorkloadMix, seed: UInt64, runPrefix: String, password: String, timeout: Double) {
        self.url = url
        self.users = users
        self.clients = clients
        self.duration = duration
        self.requests = requests
        self.rate = rate
        self.mix = mix
        self.seed = seed
        self.runPrefix = runPrefix
        self.password = password
        self.timeout = timeout
    }

    package func username(_ user: Int) -> String { "\(runPrefix)u\(user)" }

    /// The drive phase's requests for one client: an even share, the remainder to the first clients.
    package func quota(client: Int) -> Int? {
        requests.map { $0 / clients + (client < $0 % clients ? 1 : 0) }
    }

    /// A prefix from the seed and the time: the same seed drives the same workload, and a rerun
    /// against the same deployment registers new users instead of colliding with the old ones.
    package static func runPrefix(seed: UInt64, time: UInt64) -> String {
        var generator = SeededGenerator(seed: seed ^ time)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "lt" + String((0..<6).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
