/// When a fixed-rate run's requests are due. Within a step of rate `r`, client `c` of `C` sends its
/// request `k` at `(k × C + c) / r` seconds from the step's start, so together the clients send one
/// request every `1 / r` seconds. A ramp is several steps, one after the other, each at its own
/// rate. Latency is measured from the due time, not from when the request actually left: a
/// stalled server then shows in the latency of every request it delayed, instead of silently
/// slowing the senders down (coordinated omission).
package struct Schedule: Sendable, Equatable {
    package struct Step: Sendable, Equatable {
        /// Requests per second over all clients.
        package var rate: Double
        /// How long the step lasts; nil for the last step of an open-ended run.
        package var seconds: Double?

        package init(rate: Double, seconds: Double?) {
            precondition(rate > 0)
            self.rate = rate
            self.seconds = seconds
        }
    }

    package var steps: [Step]
    package var clients: Int

    /// One rate for the whole run.
    package init(rate: Double, clients: Int) {
        self.init(steps: [Step(rate: rate, seconds: nil)], clients: clients)
    }

    package init(steps: [Step], clients: Int) {
        precondition(!steps.isEmpty && clients > 0)
        self.steps = steps
        self.clients = clients
    }

    /// Nanoseconds from the start until client `client`'s request `index` is due; after the last
    /// step of a ramp, its end (a deadline there stops the client).
    package func due(client: Int, index: Int) -> UInt64 {
        var start = 0.0
        var index = index
        for step in steps {
            let perClient = step.seconds.map { Int(($0 * step.rate / Double(clients)).rounded(.down)) } ?? .max
            if index < perClient {
                return UInt64(((start + Double(index * clients + client) / step.rate) * 1e9).rounded())
            }
            index -= perClient
            start += step.seconds ?? 0
        }
        return UInt64((start * 1e9).rounded())
    }
}
