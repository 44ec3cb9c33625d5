import CZeroMQ
import Foundation

// Getters are throwing properties and setters are methods because Swift setters cannot throw,
// and option calls fail on closed or terminated sockets.
extension ZMQSocket {
    /// Milliseconds pending outbound messages are kept after close; -1 waits forever.
    /// Sockets start at 0 (see ``ZMQSocket``).
    package var linger: Int {
        get throws { Int(try int32Option(ZMQ_LINGER, "ZMQ_LINGER")) }
    }

    package func setLinger(milliseconds: Int) throws {
        try setInt32Option(ZMQ_LINGER, "ZMQ_LINGER", milliseconds)
    }

    /// Messages queued per peer before sends block or drop (by socket type); 0 means no limit.
    package var sendHighWaterMark: Int {
        get throws { Int(try int32Option(ZMQ_SNDHWM, "ZMQ_SNDHWM")) }
    }

    package func setSendHighWaterMark(_ messages: Int) throws {
        try setInt32Option(ZMQ_SNDHWM, "ZMQ_SNDHWM", messages)
    }

    package var receiveHighWaterMark: Int {
        get throws { Int(try int32Option(ZMQ_RCVHWM, "ZMQ_RCVHWM")) }
    }

    package func setReceiveHighWaterMark(_ messages: Int) throws {
        try setInt32Option(ZMQ_RCVHWM, "ZMQ_RCVHWM", messages)
    }

    /// Milliseconds a blocking `send` waits before returning `false`; -1 (the default) waits forever.
    package var sendTimeout: Int {
        get throws { Int(try int32Option(ZMQ_SNDTIMEO, "ZMQ_SNDTIMEO")) }
    }

    package func setSendTimeout(milliseconds: Int) throws {
        try setInt32Option(ZMQ_SNDTIMEO, "ZMQ_SNDTIMEO", milliseconds)
    }

    /// Milliseconds a blocking `receive` waits before returning `nil`; -1 (the default) waits forever.
    package var receiveTimeout: Int {
        get throws { Int(try int32Option(ZMQ_RCVTIMEO, "ZMQ_RCVTIMEO")) }
    }

    package func setReceiveTimeout(milliseconds: Int) throws {
        try setInt32Option(ZMQ_RCVTIMEO, "ZMQ_RCVTIMEO", milliseconds)
    }

    /// Largest inbound frame in bytes (libzmq checks each frame of a multipart message on its
    /// own); a peer sending a larger one is disconnected and its message dropped.
    /// -1 (the default) means no limit.
    package var maxMessageSize: Int64 {
        get throws {
            var value: Int64 = 0
            try getOption(ZMQ_MAXMSGSIZE, "ZMQ_MAXMSGSIZE", into: &value)
            return value
        }
    }

    package func setMaxMessageSize(_ bytes: Int64) throws {
        var value = bytes
        try setOption(ZMQ_MAXMSGSIZE, "ZMQ_MAXMSGSIZE", &value, MemoryLayout<Int64>.size)
    }

    /// Whether a ROUTER throws EHOSTUNREACH for messages to unknown peers instead of dropping them.
    package func setRouterMandatory(_ enabled: Bool) throws {
        try setInt32Option(ZMQ_ROUTER_MANDATORY, "ZMQ_ROUTER_MANDATORY", enabled ? 1 : 0)
    }

    /// Whether messages are queued only for completed connections, so sends block or fail
    /// instead of piling up for peers that are not there yet.
    package var immediate: Bool {
        get throws { try int32Option(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE") != 0 }
    }

    package func setImmediate(_ enabled: Bool) throws {
        try setInt32Option(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE", enabled ? 1 : 0)
    }

    /// The identity a ROUTER peer sees for this socket; set before `connect` or `bind`.
    package func setRoutingID(_ id: Data) throws {
        try setBytesOption(ZMQ_ROUTING_ID, "ZMQ_ROUTING_ID", id)
    }

    /// SUB only: receive messages whose first frame starts with `prefix` ("" receives everything).
    package func subscribe(_ prefix: String) throws {
        try subscribe(bytes: Data(prefix.utf8))
    }

    package func subscribe(bytes prefix: Data) throws {
        try setBytesOption(ZMQ_SUBSCRIBE, "ZMQ_SUBSCRIBE", prefix)
    }

    /// SUB only: removes one earlier subscription to exactly this prefix.
    package func unsubscribe(_ prefix: String) throws {
        try unsubscribe(bytes: Data(prefix.utf8))
    }

    package func unsubscribe(bytes prefix: Data) throws {
        try setBytesOption(ZMQ_UNSUBSCRIBE, "ZMQ_UNSUBSCRIBE", prefix)
    }

    /// The endpoint last bound or connected, with wildcards resolved: binding
    /// `tcp://127.0.0.1:*` yields the chosen port.
    package var lastEndpoint: String {
        get throws {
            var buffer = [UInt8](repeating: 0, count: 1024)
            var size = buffer.count
            let handle = try openHandle("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
            guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else {
                throw ZMQError.last("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
            }
            return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private func int32Option(_ option: Int32, _ name: String) throws -> Int32 {
        var value: Int32 = 0
        try getOption(option, name, into: &value)
        return value
    }

    func setInt32Option(_ option: Int32, _ name: String, _ value: Int) throws {
        guard var value = Int32(exactly: value) else {
            throw ZMQError.failed(operation: "zmq_setsockopt(\(name), \(value))", code: EINVAL)
        }
        try setOption(option, name, &value, MemoryLayout<Int32>.size)
    }

    /// An empty text clears the option: libzmq takes that only as a null pointer.
    func setTextOption(_ option: Int32, _ name: String, _ text: String) throws {
        if text.isEmpty { return try setOption(option, name, nil, 0) }
        try setBytesOption(option, name, Data(text.utf8))
    }

    private func setBytesOption(_ option: Int32, _ name: String, _ bytes: Data) throws {
        try bytes.withUnsafeBytes { buffer in
            try setOption(option, name, buffer.baseAddress, buffer.count)
        }
    }

    private func setOption(_ option: Int32, _ name: String, _ value: UnsafeRawPointer?, _ size: Int) throws {
        let handle = try openHandle("zmq_setsockopt(\(name))")
        guard zmq_setsockopt(handle, option, value, size) == 0 else {
            throw ZMQError.last("zmq_setsockopt(\(name))")
        }
    }

    private func getOption<Value: FixedWidthInteger>(_ option: Int32, _ name: String, into value: inout Value) throws {
        let handle = try openHandle("zmq_getsockopt(\(name))")
        var size = MemoryLayout<Value>.size
        guard zmq_getsockopt(handle, option, &value, &size) == 0 else {
            throw ZMQError.last("zmq_getsockopt(\(name))")
        }
    }
}
