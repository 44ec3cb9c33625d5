import Foundation
import Testing

/// `pantry restore` and the erasure ledger it must be given (issue 45: a restore without
/// `--erasures` brought a deleted person back and said "0 erased people kept erased").
@Suite struct RestoreTests {
    /// A data directory with one account, and its backup.
    private static func backupOfOneAccount(in root: URL) throws -> URL {
        let data = root.appendingPathComponent("data"), backup = root.appendingPathComponent("backup")
        let submitted = try PantryBinary.run(["submit", "--data", data.path], environment: [:],
                                             input: Data((CommandLineTests.register + "\n").utf8))
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let taken = try PantryBinary.run(["backup", "--data", data.path, backup.path], environment: [:])
        #expect(taken.status == 0, "\(taken.stderr)")
        return backup
    }

    @Test func aRestoreWithoutALedgerIsRefusedAndChangesNothing() throws {
        let root = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let backup = try Self.backupOfOneAccount(in: root)
        let target = root.appendingPathComponent("restored")
        let refused = try PantryBinary.run(["restore", "--data", target.path, backup.path], environment: [:])
        #expect(refused.status == 64 && refused.stderr.contains("--erasures LEDGER") && refused.stderr.contains("--no-erasures"),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target.path), "nothing made")
        let both = try PantryBinary.run(["restore", "--data", target.path, "--no-erasures", "--erasures", "x.tsv", backup.path],
                                        environment: [:])
        #expect(both.status == 64 && both.stderr.contains("exclude each other"), "\(both.stderr)")
        let told = try PantryBinary.run(["restore", "--data", target.path, "--no-erasures", backup.path], environment: [:])
        #expect(told.status == 0 && told.stdout.contains("--no-erasures: anyone deleted after this backup was taken is back"),
                "\(told.stdout)\(told.stderr)")
    }

    @Test func aRestoreWithALedgerNamesItsDateAndHowManyItKeepsErased() throws {
        let root = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let backup = try Self.backupOfOneAccount(in: root)
        let ledger = root.appendingPathComponent("erased-users.tsv")
        try Data("2026-11-30T08:00:00Z\tu1\n2026-11-30T09:00:00Z\tu-never-backed-up\n".utf8).write(to: ledger)
        let written = Date(timeIntervalSince1970: 1_764_500_000)
        try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: ledger.path)
        let target = root.appendingPathComponent("restored")
        let done = try PantryBinary.run(["restore", "--data", target.path, "--erasures", ledger.path, backup.path], environment: [:])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("erasure ledger \(ledger.path) of \(written.formatted(.iso8601)) keeps 2 people erased"), "\(done.stdout)")
        #expect(done.stdout.contains("1 erased people kept erased (1 deleted again"), "\(done.stdout)")
        let stats = try PantryBinary.run(["stats", "--json", "--data", target.path], environment: [:])
        #expect((stats.stdout.jsonObject?["byType"] as? [String: Int])?["UserDeleted"] == 1, "\(stats.stdout)")
    }
}
