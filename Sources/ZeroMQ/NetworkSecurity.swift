import CZeroMQ
import Foundation

/// What a context's sockets do on `tcp://` endpoints. `ipc://` and `inproc://` are reachable only
/// on the host (file permissions, the process), so they stay plain whatever this says.
package enum ZMQNetworkSecurity: Sendable, Equatable {
    /// Plain ZeroMQ: anyone who reaches the port may talk.
    case plain
    /// CURVE on every `tcp://` bind and connect, clients admitted by the context's ZAP handler.
    case curve(ZMQCurvePolicy)
}

/// Who a process is on the network and whom it admits.
///
/// Every `tcp://` socket bound is a CURVE server with this process's key and the endpoint as its
/// ZAP domain; every `tcp://` socket connected is a CURVE client that insists on the server key
/// listed for the endpoint's host, so a host that answers in the server's place learns nothing.
package struct ZMQCurvePolicy: Sendable, Equatable {
    /// This process's keys: the server's for what it binds, the client's for what it connects to.
    package var keyPair: ZMQCurveKeyPair
    /// The public key of the server at each host, the host as written in `tcp://HOST:PORT`.
    package var serverKeys: [String: String]
    /// Every client public key admitted anywhere, with the name ZAP reports for it (its role).
    package var clients: [String: String]
    /// The names each bound endpoint admits, by the endpoint as given to `bind`. A client whose
    /// key is not listed, or whose name the endpoint does not admit, fails the handshake; an
    /// endpoint not listed here admits nobody.
    package var admitted: [String: Set<String>]

    package init(keyPair: ZMQCurveKeyPair, serverKeys: [String: String], clients: [String: String], admitted: [String: Set<String>]) {
        self.keyPair = keyPair
        self.serverKeys = serverKeys
        self.clients = clients
        self.admitted = admitted
    }

    /// The name (`User-Id`) a peer that came through a local (`ipc://`, `inproc://`) listener is
    /// admitted with.
    package static let localPeer = ZAPHandler.localDomain

    /// The name of a client admitted on `domain` (a bound endpoint), or why it is refused.
    package func admit(clientKey: String, domain: String) -> Result<String, ZMQSecurityError> {
        guard let name = clients[clientKey] else { return .failure(ZMQSecurityError("key not listed")) }
        guard admitted[domain]?.contains(name) == true else { return .failure(ZMQSecurityError("\(name) may not use \(domain)")) }
        return .success(name)
    }

    /// `HOST` of `tcp://HOST:PORT` (also `tcp://SOURCE;HOST:PORT` and `tcp://[IPv6]:PORT`).
    package static func host(ofTCP endpoint: String) -> String? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        var rest = Substring(endpoint.dropFirst("tcp://".count))
        if let separator = rest.lastIndex(of: ";") { rest = rest[rest.index(after: separator)...] }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        var host = rest[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return host.isEmpty ? nil : String(host)
    }
}

/// A peer the ZAP handler turned away, for the server's log.
package struct ZMQRefusal: Sendable, Equatable {
    /// The peer's IP address, as libzmq saw it.
    package var address: String
    /// The bound endpoint it tried (the ZAP domain).
    package var endpoint: String
    package var reason: String
}

/// A `tcp://` endpoint the security in force cannot serve (no server key for its host, say).
package struct ZMQSecurityError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

extension ZMQSocket {
    /// Sets the mechanism options for a bind to `endpoint`. libzmq copies a socket's options into
    /// each listener and connection as it is made, so one socket may bind `ipc://` plainly and
    /// `tcp://` with CURVE (ZMQ_CURVE_SERVER 0 is the NULL mechanism).
    func secure(binding endpoint: String) throws {
        guard case .curve(let policy) = context.security else { return }
        guard endpoint.hasPrefix("tcp://") else {
            // libzmq cannot clear a ZAP domain, and with one it asks ZAP about NULL-mechanism
            // peers too: this domain tells the handler they came through a local listener.
            try setInt32Option(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER", 0)
            return try setTextOption(ZMQ_ZAP_DOMAIN, "ZMQ_ZAP_DOMAIN", ZAPHandler.localDomain)
        }
        try setInt32Option(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER", 1)
        try setTextOption(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY", policy.keyPair.secretKey)
        try setTextOption(ZMQ_ZAP_DOMAIN, "ZMQ_ZAP_DOMAIN", endpoint)
    }

    /// Sets the mechanism options for a connection to `endpoint`.
    func secure(connecting endpoint: String) throws {
        guard case .curve(let policy) = context.security else { return }
        guard endpoint.hasPrefix("tcp://") else { return try setInt32Option(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER", 0) }
        guard let host = ZMQCurvePolicy.host(ofTCP: endpoint), let serverKey = policy.serverKeys[host] else {
            throw ZMQSecurityError("no public key for the server at \(endpoint): its host's .public file is not in the keys directory")
        }
        try setTextOption(ZMQ_CURVE_SERVERKEY, "ZMQ_CURVE_SERVERKEY", serverKey)
        try setTextOption(ZMQ_CURVE_PUBLICKEY, "ZMQ_CURVE_PUBLICKEY", policy.keyPair.publicKey)
        try setTextOption(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY", policy.keyPair.secretKey)
    }
}
