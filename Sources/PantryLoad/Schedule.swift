/// When a fixed-rate run's requests are due. Client `c` of `C` sends its request `k` at
/// `(k × C + c) / rate` seconds from the start, so together the clients send one request every
/// `1 / rate` seconds. Latency is measured from that time, not from when the request actually
/// left: a stalled server then shows in the latency of every request it delayed, instead of
/// silently slowing the senders down (coordinated omission).
public struct Schedule: Sendable, Equatable {
    /// Requests per second over all clients.
    public var rate: Double
    public var clients: Int

    public init(rate: Double, clients: Int) {
        precondition(rate > 0 && clients > 0)
        self.rate = rate
        self.clients = clients
    }

    /// Nanoseconds from the start until client `client`'s request `index` is due.
    public func due(client: Int, index: Int) -> UInt64 {
        UInt64((Double(index * clients + client) / rate * 1e9).rounded())
    }
}
