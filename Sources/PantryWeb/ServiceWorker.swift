import Crypto
import Foundation

/// The web app's service worker as served: `Web/sw.js` with its two hand-kept lines made from the
/// files themselves, once at start. `shell` lists `/` and every file under `app/`, so a new screen
/// is kept offline without anyone listing it; `cacheName` is `pantry-` and a digest of those files,
/// so any change to them is a new cache, whose activation deletes the old one (a name bumped by
/// hand was forgotten, or bumped by two branches at once).
package enum ServiceWorker {
    /// The lines of `sw.js` replaced here, exactly as it holds them.
    static let cacheNameLine = #"const cacheName = "pantry-dev";"#
    static let shellLine = #"const shell = ["/"];"#

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The served script for the web files at `root`.
    package static func script(root: URL) throws -> Data {
        guard let template = try? String(contentsOf: root.appendingPathComponent("sw.js"), encoding: .utf8) else {
            throw Missing(description: "sw.js is missing from the web files at \(root.path)")
        }
        guard template.contains(cacheNameLine), template.contains(shellLine) else {
            throw Missing(description: "sw.js no longer holds the lines the server fills in: \(cacheNameLine) and \(shellLine)")
        }
        let files = try appFiles(root: root)
        let shell = ["/"] + files.map { "/app/\($0)" }
        var digest = SHA256()
        for (path, file) in zip(shell, ["index.html"] + files.map { "app/\($0)" }) {
            digest.update(data: Data(path.utf8))
            digest.update(data: try Data(contentsOf: root.appendingPathComponent(file)))
        }
        let version = digest.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
        let list = shell.map { "\"\($0)\"" }.joined(separator: ", ")
        return Data(template
            .replacingOccurrences(of: cacheNameLine, with: #"const cacheName = "pantry-\#(version)";"#)
            .replacingOccurrences(of: shellLine, with: "const shell = [\(list)];").utf8)
    }

    /// Every file under `app/`, relative to it, sorted: what the app loads.
    package static func appFiles(root: URL) throws -> [String] {
        let app = root.appendingPathComponent("app")
        guard let walk = FileManager.default.enumerator(at: app, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw Missing(description: "the web app's folder \(app.path) cannot be read")
        }
        let prefix = app.standardizedFileURL.path + "/"
        var files: [String] = []
        for case let url as URL in walk where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files.append(String(url.standardizedFileURL.path.dropFirst(prefix.count)))
        }
        return files.sorted()
    }
}
