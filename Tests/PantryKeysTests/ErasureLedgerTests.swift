import Foundation
import PantryKeys
import PantryTestSupport
import Testing

@Suite struct ErasureLedgerTests {
    func temporaryPath() -> String {
        scratchPath("ledger", ".tsv")
    }

    @Test("A ledger lists each erased user once, with the time of the first listing, and only its owner reads it")
    func aLedgerListsEachUserOnce() throws {
        let ledger = ErasureLedger(path: temporaryPath())
        #expect(try ledger.read().isEmpty, "no file yet: nobody erased")
        let first = Date(timeIntervalSince1970: 1_795_000_000)
        try ledger.record(["u1", "u2"], at: first)
        try ledger.record(["u2", "u3", "u3"], at: first.addingTimeInterval(60))
        #expect(try ledger.read() == [
            .init(userId: "u1", erasedAt: first), .init(userId: "u2", erasedAt: first),
            .init(userId: "u3", erasedAt: first.addingTimeInterval(60)),
        ])
        let mode = try FileManager.default.attributesOfItem(atPath: ledger.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("Another ledger's erasures are merged with their own times")
    func anotherLedgersErasuresKeepTheirTimes() throws {
        let ledger = ErasureLedger(path: temporaryPath())
        try ledger.record(["u1"], at: Date(timeIntervalSince1970: 1_795_000_000))
        try ledger.record([.init(userId: "u1", erasedAt: Date(timeIntervalSince1970: 1)),
                           .init(userId: "u9", erasedAt: Date(timeIntervalSince1970: 1_700_000_000))])
        #expect(try ledger.read().map(\.erasedAt.timeIntervalSince1970) == [1_795_000_000, 1_700_000_000])
    }

    @Test("A ledger that does not parse is refused whole, naming its line", arguments: [
        "2026-11-27T12:00:00Z\tu1\nyesterday\tu2\n",
        "2026-11-27T12:00:00Z u1\n",
        "2026-11-27T12:00:00Z\t\n",
        "2026-11-27T12:00:00Z\tu 1\n",
        "2026-11-27T12:00:00Z\tu1\tmore\n",
    ])
    func aMalformedLedgerIsRefused(_ text: String) throws {
        let path = temporaryPath()
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ErasureLedger.Malformed.self) { try ErasureLedger(path: path).read() }
    }
}
