import Foundation
import PantryTestSupport
import Testing
@testable import PantryWeb

/// The service worker's list of the app's files and its cache name are made from the files, not
/// kept by hand (`ServiceWorker`).
@Suite struct ServiceWorkerTests {
    static let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PantryWeb/Web")

    /// A copy of the web files in the test scratch, removed after `body`.
    private func withCopy(_ body: (URL) throws -> Void) throws {
        let copy = URL(fileURLWithPath: scratchPath("pantry-web"))
        try FileManager.default.copyItem(at: Self.web, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try body(copy)
    }

    private func cacheName(_ script: Data) -> String? {
        let text = String(decoding: script, as: UTF8.self)
        return text.firstMatch(of: /const cacheName = "(pantry-[0-9a-f]{16})";/).map { String($0.1) }
    }

    @Test func theShellListsTheRootAndEveryFileOfTheApp() throws {
        let script = String(decoding: try ServiceWorker.script(root: Self.web), as: UTF8.self)
        let files = try ServiceWorker.appFiles(root: Self.web)
        #expect(files.contains("app.js") && files.contains("screens/recipe.js") && files.contains("ingredients.js"))
        let listed = (["/"] + files.map { "/app/\($0)" }).map { "\"\($0)\"" }.joined(separator: ", ")
        #expect(script.contains("const shell = [\(listed)];"))
        #expect(!script.contains(ServiceWorker.shellLine) && !script.contains(ServiceWorker.cacheNameLine))
    }

    @Test func anyChangeToTheAppsFilesIsANewCacheAndNothingElseIs() throws {
        try withCopy { copy in
            let first = try #require(cacheName(try ServiceWorker.script(root: copy)))
            #expect(cacheName(try ServiceWorker.script(root: copy)) == first, "the same files, the same name")
            let css = copy.appendingPathComponent("app/app.css")
            try (try Data(contentsOf: css) + Data("\n".utf8)).write(to: css)
            let changed = try #require(cacheName(try ServiceWorker.script(root: copy)))
            #expect(changed != first)
            try Data("export {};\n".utf8).write(to: copy.appendingPathComponent("app/screens/new.js"))
            let added = try ServiceWorker.script(root: copy)
            #expect(String(decoding: added, as: UTF8.self).contains("\"/app/screens/new.js\""))
            #expect(cacheName(added) != changed)
        }
    }

    @Test func aTemplateWithoutTheLinesToFillIsRefusedWithWhy() throws {
        try withCopy { copy in
            let worker = copy.appendingPathComponent("sw.js")
            let text = try String(contentsOf: worker, encoding: .utf8)
            try Data(text.replacingOccurrences(of: ServiceWorker.shellLine, with: #"const shell = ["/", "/app/app.js"];"#).utf8).write(to: worker)
            #expect { try ServiceWorker.script(root: copy) } throws: { "\($0)".contains("no longer holds the lines") }
        }
    }
}
