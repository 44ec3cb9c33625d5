import Crypto
import PantryDomain
import Testing
@testable import PantryAPI

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
        #expect(accounts.origins.keys.sorted() == ["u2"])
        #expect(try await accounts.account(named: "bo")?.passwordHash == "hash-of-bo")
    }

    @Test("Restored from a snapshot's origins, an account is known by its digests but opened by nobody until needed")
    func restoredAccountsStayClosed() async throws {
        let digester = LoginDigester(tokenKey: SymmetricKey(size: .bits256))
        let accounts = AccountDirectory(revocations: RevocationList(), digester: digester, registrations: nil)
        accounts.restore(origins: ["u1": .init(registeredAt: 1, passwordChangedAt: nil, credentialsGeneration: 2,
                                               username: digester.digest(username: "ann"), email: digester.digest(email: "ann@example.org"))])
        #expect(accounts.isTaken(username: "ANN") && accounts.hasAccount("u1") && accounts.credentialsGeneration(of: "u1") == 2)
        #expect(!accounts.isOpen("u1"))
        // Without a log to read it back from, it cannot be opened (the API always has one).
        #expect(try await accounts.account(named: "ann") == nil)
    }
}
