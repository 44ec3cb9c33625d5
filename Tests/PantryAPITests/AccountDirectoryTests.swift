import Crypto
import PantryDomain
import Testing
@testable import PantryHTTP

struct AccountDirectoryTests {
    static func registered(_ userId: UserID, _ name: String) -> Event {
        .userRegistered(UserRegistered(userId: userId, username: name, email: "\(name)@example.org", passwordHash: "hash-of-\(name)"))
    }

    @Test("A deleted account cannot be found by name, email or id, and nothing of it stays open in memory")
    func deletionForgets() async throws {
        let accounts = AccountDirectory(revocations: RevocationList(), digester: LoginDigester(tokenKey: SymmetricKey(size: .bits256)),
                                        registrations: nil)
        accounts.apply([(Self.registered("u1", "ann"), 1), (Self.registered("u2", "bo"), 2)], through: 2)
        #expect(try await accounts.account(named: "ANN")?.userId == "u1")
        #expect(try await accounts.account(named: "Ann@Example.org")?.userId == "u1")
        #expect(accounts.isTaken(username: "ann") && accounts.isOpen("u1"))

        accounts.apply([(.userDeleted(UserDeleted(userId: "u1")), 3)], through: 3)
        #expect(try await accounts.account(named: "ann") == nil)
        #expect(try await accounts.account(named: "ann@example.org") == nil)
        #expect(try await accounts.account(id: "u1") == nil)
        #expect(!accounts.isOpen("u1") && !accounts.isTaken(username: "ann") && accounts.credentialsGeneration(of: "u1") == nil)
        #expect(accounts.table.userIds == ["u2"])
        #expect(try await accounts.account(named: "bo")?.passwordHash == "hash-of-bo")
    }

    @Test("Restored from a snapshot's origins, an account is known by its digests but opened by nobody until needed")
    func restoredAccountsStayClosed() async throws {
        let digester = LoginDigester(tokenKey: SymmetricKey(size: .bits256))
        let accounts = AccountDirectory(revocations: RevocationList(), digester: digester, registrations: nil)
        accounts.restore(AccountTable(["u1": .init(origin: .init(registeredAt: 1, passwordChangedAt: nil, credentialsGeneration: 2),
                                                   username: digester.digest(username: "ann"), email: digester.digest(email: "ann@example.org"))]))
        #expect(accounts.isTaken(username: "ANN") && accounts.hasAccount("u1") && accounts.credentialsGeneration(of: "u1") == 2)
        #expect(!accounts.isOpen("u1"))
        // Without a log to read it back from, it cannot be opened (the API always has one).
        #expect(try await accounts.account(named: "ann") == nil)
    }

    @Test("After a restore, accounts registered, deleted or changed since are found beside the restored table, look-alikes too, and the next snapshot holds them all")
    func changesAfterRestore() async throws {
        let digester = LoginDigester(tokenKey: SymmetricKey(size: .bits256))
        let folded = AccountDirectory(revocations: RevocationList(), digester: digester, registrations: nil)
        folded.apply((1...50).map { (Self.registered("u\($0)", "name\($0)"), Int64($0)) }, through: 50)
        let accounts = AccountDirectory(revocations: RevocationList(), digester: digester, registrations: nil)
        accounts.restore(folded.table)
        #expect(accounts.table == folded.table && accounts.table.count == 50)
        #expect(accounts.isTaken(username: "NAME7") && accounts.isTaken(username: "n\u{430}me7") && !accounts.isTaken(username: "name51"))

        accounts.apply([(Self.registered("u51", "joe"), 51), (.userDeleted(UserDeleted(userId: "u7")), 52),
                        (.passwordChanged(PasswordChanged(userId: "u9", passwordHash: "new")), 53),
                        (.userDeleted(UserDeleted(userId: "u51")), 54), (Self.registered("u52", "jo3"), 55),
                        (Self.registered("u8", "name8"), 56)], through: 56)
        // Registered after the restore: found by name, by a look-alike and by email.
        #expect(try await accounts.account(named: "J\u{41E}3")?.userId == "u52")
        #expect(try await accounts.account(named: "jo3@Example.org")?.userId == "u52")
        #expect(accounts.isTaken(username: "joe") == false && accounts.credentialsGeneration(of: "u52") == 0)
        // Deleted after the restore, whether restored or registered since: gone by name and id.
        #expect(!accounts.isTaken(username: "name7") && !accounts.hasAccount("u7") && !accounts.hasAccount("u51"))
        #expect(try await accounts.account(named: "name7@example.org") == nil)
        // Changed after the restore: its generation moves, and the account stays found.
        #expect(accounts.credentialsGeneration(of: "u9") == 1 && accounts.isTaken(username: "name9"))
        // Registered again under a restored id: the new registration is the one kept.
        #expect(accounts.table.origins[accounts.table.index(of: "u8")!].registeredAt == 56)

        let next = accounts.table
        #expect(next.count == 50 && next.index(of: "u7") == nil && next.index(of: "u52") != nil)
        #expect(next.userIds == next.userIds.sorted() && next.logins == next.logins.sorted() && next.logins.count == 100)
        let restoredAgain = AccountDirectory(revocations: RevocationList(), digester: digester, registrations: nil)
        restoredAgain.restore(next)
        #expect(restoredAgain.isTaken(username: "jo3") && !restoredAgain.isTaken(username: "name7")
                && restoredAgain.credentialsGeneration(of: "u9") == 1)
    }
}
