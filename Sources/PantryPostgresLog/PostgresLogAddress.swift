import Foundation
import PostgresNIO

/// Where a PostgreSQL log is: `postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]...]/DATABASE`,
/// or a unix socket directory as libpq spells it (`postgres://USER@/DATABASE?host=/run/postgresql&port=5432`).
/// Several hosts are a primary and its standbys, tried in order as libpq does; with
/// `?target_session_attrs=read-write` a reader too keeps only the one that is not in recovery (the
/// writer always does).
package struct PostgresLogAddress: Sendable, Equatable, CustomStringConvertible {
    package struct Host: Sendable, Equatable, CustomStringConvertible {
        package var name: String
        package var port: Int

        package init(name: String, port: Int) {
            self.name = name
            self.port = port
        }

        package var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
    }

    /// libpq's `target_session_attrs`, of the values a log's processes need.
    package enum TargetSession: String, Sendable {
        case any
        case readWrite = "read-write"
    }

    package var hosts: [Host]
    package var socketDirectory: String?
    package var username: String
    package var password: String?
    package var database: String
    package var targetSession: TargetSession

    package static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    package init(_ url: String) throws {
        guard Self.isPostgres(url), let schemeEnd = url.range(of: "://") else {
            throw PostgresLogError.badAddress("expected postgres://user@host:port/database")
        }
        // By hand: URLComponents takes `h1:p1,h2:p2` for no host at all.
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let components = URLComponents(string: "postgres://host" + rest[authorityEnd...]) else {
            throw PostgresLogError.badAddress("expected postgres://user@host:port/database")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
        let at = authority.lastIndex(of: "@")
        let userInfo = at.map { authority[..<$0] } ?? ""
        let hostList = at.map { authority[authority.index(after: $0)...] } ?? authority
        let colon = userInfo.firstIndex(of: ":")
        let user = colon.map { userInfo[..<$0] } ?? userInfo
        username = user.isEmpty ? "postgres" : (String(user).removingPercentEncoding ?? String(user))
        password = colon.map { String(userInfo[userInfo.index(after: $0)...]) }.map { $0.removingPercentEncoding ?? $0 }
        let defaultPort = query["port"].flatMap(Int.init) ?? 5432
        hosts = try hostList.isEmpty ? [] : hostList.split(separator: ",", omittingEmptySubsequences: false).map { entry in
            try Self.host(entry, defaultPort: defaultPort)
        }
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if hosts.isEmpty {
            guard socketDirectory != nil || hostList.isEmpty else { throw PostgresLogError.badAddress("no host in \(hostList)") }
            hosts = [Host(name: "127.0.0.1", port: defaultPort)]
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : path
        switch query["target_session_attrs"] {
        case nil, "any": targetSession = .any
        // A primary is what read-write finds on any server a log uses (no default_transaction_read_only).
        case "read-write", "primary": targetSession = .readWrite
        case let other?:
            throw PostgresLogError.badAddress("target_session_attrs is any or read-write, not \(other)")
        }
    }

    private static func host(_ entry: Substring, defaultPort: Int) throws -> Host {
        var name = entry, port: Substring?
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            name = entry[entry.index(after: entry.startIndex)..<close]
            let after = entry[entry.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { name = "" }
        } else if let colon = entry.lastIndex(of: ":") {
            name = entry[..<colon]
            port = entry[entry.index(after: colon)...]
        }
        guard !name.isEmpty else { throw PostgresLogError.badAddress("a host list entry without a host: \(entry)") }
        guard let port = port.map({ Int($0) }) ?? defaultPort, (1...65535).contains(port) else {
            throw PostgresLogError.badAddress("not a port: \(entry)")
        }
        return Host(name: String(name), port: port)
    }

    /// The first host, for what names one server (a test's own database).
    package var host: String { hosts[0].name }
    package var port: Int { hosts[0].port }

    /// The connection to `host` (one of `hosts`).
    func configuration(_ host: Host) -> PostgresConnection.Configuration {
        if let socketDirectory {
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(host.port)", username: username, password: password, database: database)
        }
        return .init(host: host.name, port: host.port, username: username, password: password, database: database, tls: .disable)
    }

    /// The address as a URL again, password included (for a child process).
    package var url: String {
        let user = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? username
        let secret = password.map { ":" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? $0) } ?? ""
        return "postgres://\(user)\(secret)@\(place)"
    }

    /// The address without its password, for logs and errors.
    package var description: String {
        "postgres://\(username)@\(place)"
    }

    private var place: String {
        let target = targetSession == .readWrite ? "target_session_attrs=read-write" : nil
        if let socketDirectory {
            return "/\(database)?host=\(socketDirectory)&port=\(port)" + (target.map { "&" + $0 } ?? "")
        }
        return hosts.map(\.description).joined(separator: ",") + "/\(database)" + (target.map { "?" + $0 } ?? "")
    }
}
