import Foundation
import ZeroMQ

/// What a host is on the internal network, as its key says. Each socket admits some roles
/// (``BusEndpoints/curvePolicy(_:)``), whatever else a peer's key proves.
package enum NetworkRole: String, CaseIterable, Sendable {
    /// The core's host: the command socket, the feed and the log service (and the fetch worker beside it).
    case core
    /// An API host: sends commands, follows the feed, reads the log service, asks workers and the fetch worker.
    case api
    /// A worker host: follows the feed and reads the log service; answers queries.
    case worker
    /// A host of the fetch worker alone.
    case fetch
    /// An operator's machine: `pantry replay` reading the log service.
    case ops
}

/// One host's CURVE key: `NAME.public` (role, addresses, public key), copied to every host it
/// talks to, and `NAME.secret` (the same and the secret key, mode 0600), only on the host.
package struct NetworkKey: Sendable, Equatable {
    package var name: String
    package var role: NetworkRole
    /// The addresses other hosts reach it at, as written in their `tcp://HOST:PORT` endpoints
    /// (a client insists on the key listed for the host it connects to).
    package var hosts: [String]
    package var publicKey: String
    /// Only in the host's own `.secret` file.
    package var secretKey: String?

    package init(name: String, role: NetworkRole, hosts: [String], keyPair: ZMQCurveKeyPair) {
        self.name = name
        self.role = role
        self.hosts = hosts
        self.publicKey = keyPair.publicKey
        self.secretKey = keyPair.secretKey
    }

    /// The file's text: `key = value` lines, Z85 keys as they are (Z85 uses `#` and `=`, so a
    /// comment is a whole line and a value is everything after the first `=`).
    package func text(withSecret: Bool) -> String {
        var lines = [withSecret ? "# Pantry: this host's secret CURVE key. Keep it here, mode 0600; never copy it."
                                : "# Pantry: a host's public CURVE key. Copy it into the keys directory of every host it talks to.",
                     "name = \(name)", "role = \(role.rawValue)", "hosts = \(hosts.joined(separator: " "))",
                     "public-key = \(publicKey)"]
        if withSecret, let secretKey { lines.append("secret-key = \(secretKey)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a `.public` or `.secret` file's text; `file` names it in errors.
    package init(parsing text: String, file: String) throws(NetworkKeyError) {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            guard let equals = line.firstIndex(of: "=") else { throw NetworkKeyError("\(file): '\(line)' is not 'key = value'") }
            fields[line[..<equals].trimmingCharacters(in: .whitespaces)] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let name = fields["name"], !name.isEmpty else { throw NetworkKeyError("\(file): no name") }
        guard let role = fields["role"].flatMap(NetworkRole.init(rawValue:)) else {
            throw NetworkKeyError("\(file): role must be one of \(NetworkRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let publicKey = fields["public-key"], ZMQCurveKeyPair.isZ85Key(publicKey) else {
            throw NetworkKeyError("\(file): public-key must be 40 characters of Z85")
        }
        if let secretKey = fields["secret-key"] {
            guard (try? ZMQCurveKeyPair(secretKey: secretKey))?.publicKey == publicKey else {
                throw NetworkKeyError("\(file): secret-key is not the secret of public-key")
            }
        }
        self.name = name
        self.role = role
        self.hosts = (fields["hosts"] ?? "").split(separator: " ").map(String.init)
        self.publicKey = publicKey
        self.secretKey = fields["secret-key"]
    }
}

/// A key file that cannot be used, said with its path.
package struct NetworkKeyError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

/// A keys directory as a process reads it: its host's own key (the one `.secret` file) and every
/// host it knows (the `.public` files, its own included).
package struct NetworkKeys: Sendable {
    package var own: NetworkKey
    package var known: [NetworkKey]

    /// The keys in `directory`, or nil when it holds no `.secret` file. A secret file others may
    /// read is refused, as ssh refuses one.
    package static func load(_ directory: URL) throws -> NetworkKeys? {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.sorted() ?? []
        let secrets = secretFiles(in: directory)
        guard let secretName = secrets.first else { return nil }
        guard secrets.count == 1 else {
            throw NetworkKeyError("\(directory.path) holds \(secrets.joined(separator: ", ")): one host, one .secret file")
        }
        let secretPath = directory.appendingPathComponent(secretName).path
        let mode = (try FileManager.default.attributesOfItem(atPath: secretPath)[.posixPermissions] as? Int) ?? 0
        guard mode & 0o077 == 0 else {
            throw NetworkKeyError("\(secretPath) may be read by others (mode \(String(mode, radix: 8))): chmod 600 it")
        }
        let own = try read(secretPath)
        var known = try files.filter { $0.hasSuffix(".public") }.map { try read(directory.appendingPathComponent($0).path) }
        if !known.contains(where: { $0.publicKey == own.publicKey }) { known.append(own) }
        var claimed: [String: String] = [:]
        for key in known {
            for host in key.hosts {
                if let other = claimed[host], other != key.name {
                    throw NetworkKeyError("\(directory.path): \(other) and \(key.name) both claim host \(host)")
                }
                claimed[host] = key.name
            }
        }
        return NetworkKeys(own: own, known: known)
    }

    /// The names of the `.secret` files in `directory` (a host's own key), sorted; none when it is missing.
    package static func secretFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".secret") }.sorted()
    }

    private static func read(_ path: String) throws -> NetworkKey {
        guard let data = FileManager.default.contents(atPath: path) else { throw NetworkKeyError("\(path): cannot be read") }
        return try NetworkKey(parsing: String(decoding: data, as: UTF8.self), file: path)
    }
}

/// How the internal network is protected, as `pantry status` and `/ready` say it.
package enum NetworkProtection: String, Sendable, Encodable {
    /// Every endpoint is `ipc://` (or in-process): one host, nothing on the network.
    case ipc
    /// `tcp://` with CURVE: peers proved by their keys.
    case curve
    /// `tcp://` without CURVE (`--insecure-network`): anyone on the network may read and send.
    case insecure
}

extension BusEndpoints {
    package var protection: NetworkProtection {
        guard usesTCP else { return .ipc }
        return security == .plain ? .insecure : .curve
    }

    /// Whether any endpoint is `tcp://` (and so needs keys).
    package var usesTCP: Bool {
        ([commands, events, log, fetch] + queries.values.flatMap { $0.split(separator: " ").map(String.init) })
            .contains { $0.hasPrefix("tcp://") }
    }

    /// Which roles each socket admits. Commands come only from API hosts (and are checked there
    /// as before); worker queries and the fetch worker answer only API hosts. The log service
    /// answers API and worker hosts too, as the feed does, because they rebuild their models
    /// from the log (the API its accounts, a worker its projection) and a replay reads it.
    package static let admittedRoles: [Socket: Set<NetworkRole>] = [
        .commands: [.api], .events: [.api, .worker], .log: [.api, .worker, .ops], .fetch: [.api], .queries: [.api],
    ]

    package enum Socket: Sendable, CaseIterable {
        case commands, events, log, fetch, queries
    }

    /// The CURVE policy of a process on this bus with `keys`: its own key pair, the server key of
    /// every known host by address, and each of its endpoints admitting its roles' keys.
    package func curvePolicy(_ keys: NetworkKeys) throws -> ZMQCurvePolicy {
        guard let secretKey = keys.own.secretKey else { throw NetworkKeyError("\(keys.own.name): no secret key") }
        var serverKeys: [String: String] = [:]
        var clients: [String: String] = [:]
        for key in keys.known {
            for host in key.hosts { serverKeys[host] = key.publicKey }
            clients[key.publicKey] = key.role.rawValue
        }
        var admitted: [String: Set<String>] = [:]
        let sockets: [(Socket, [String])] = [(.commands, [commands]), (.events, [events]), (.log, [log]), (.fetch, [fetch]),
                                             (.queries, queries.values.flatMap { $0.split(separator: " ").map(String.init) })]
        for (socket, endpoints) in sockets {
            for endpoint in endpoints where endpoint.hasPrefix("tcp://") {
                admitted[endpoint, default: []].formUnion(Self.admittedRoles[socket, default: []].map(\.rawValue))
            }
        }
        return ZMQCurvePolicy(keyPair: try ZMQCurveKeyPair(secretKey: secretKey), serverKeys: serverKeys,
                              clients: clients, admitted: admitted)
    }
}
