import Foundation
import PantryDomain
import Testing

@Suite struct RegisterUserTests {
    @Test(arguments: ["abc", "ABC", "a.b-c_d", "user_123", String(repeating: "z", count: 32), "1-2.3"])
    func acceptsValidUsernames(_ username: String) throws {
        var world = World()
        let event = try world.accept(register("u1", username))
        #expect(event.userRegistered?.username == username)
    }

    @Test(arguments: ["", "ab", String(repeating: "z", count: 33), "a b", "abc!", "émile", "abc\n", "ab@c", " abc", "ab/c"])
    func refusesInvalidUsernames(_ username: String) {
        var world = World()
        #expect(world.reject(register("u1", username, email: "x@example.org")) == .invalidUsername)
    }

    @Test func usernamesAreUniqueCaseInsensitively() throws {
        var world = try World.withAlice()
        #expect(world.reject(register("u2", "Alice", email: "b@example.org")) == .usernameTaken)
        #expect(world.reject(register("u3", "aLiCe", email: "c@example.org")) == .usernameTaken)
        try world.accept(register("u2", "alice2", email: "b@example.org"))
    }

    @Test(arguments: ["a@b.co", "first.last+tag@example.org", "Mixed.Case@Example.ORG", "x@sub.domain.example"])
    func acceptsWellFormedEmails(_ email: String) throws {
        var world = World()
        let event = try world.accept(register("u1", "alice", email: email))
        #expect(event.userRegistered?.email == email)
    }

    @Test(arguments: ["", "plain", "a@b", "@example.org", "a@@example.org", "a@b@c.org", "a@.example.org",
                      "a@example.org.", "a@example..org", "a b@example.org", "a@exa mple.org",
                      String(repeating: "l", count: 65) + "@example.org", "a\u{0}@example.org"])
    func refusesMalformedEmails(_ email: String) {
        var world = World()
        #expect(world.reject(register("u1", "alice", email: email)) == .invalidEmail)
    }

    @Test func emailsAreUniqueCaseInsensitively() throws {
        var world = try World.withAlice()
        #expect(world.reject(register("u2", "bob", email: "ALICE@EXAMPLE.ORG")) == .emailTaken)
        #expect(world.reject(register("u2", "bob", email: "Alice@example.org")) == .emailTaken)
        try world.accept(register("u2", "bob", email: "bob@example.org"))
    }

    @Test(arguments: ["hunter2", "correct horse battery staple", "averyveryverylongpasswordwithoutdollar",
                      "$short", "$scrypt$has a space in it$abcdef", "", String(repeating: "$", count: 513)])
    func refusesAnythingButAPHCHash(_ hash: String) {
        var world = World()
        #expect(world.reject(register("u1", "alice", hash: hash)) == .invalidPasswordHash)
    }

    @Test func theEventCarriesTheHashAndNoPassword() throws {
        let argon = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG"
        var world = World()
        let event = try world.accept(register("u1", "alice", email: "alice@example.org", hash: argon))
        #expect(event == .userRegistered(UserRegistered(userId: "u1", username: "alice", email: "alice@example.org", passwordHash: argon)))
        let json = try #require(try JSONSerialization.jsonObject(with: EventCoding.encode(event)) as? [String: Any])
        #expect(Set(json.keys) == ["userId", "username", "email", "passwordHash"])
    }

    @Test func registeringUpdatesTheState() throws {
        let world = try World.withAlice()
        #expect(world.state.users["u1"]?.username == "alice")
        #expect(world.state.users["u1"]?.email == "alice@example.org")
        #expect(world.state.usernames["alice"] == "u1")
        #expect(world.state.emails["alice@example.org"] == "u1")
    }

    @Test(arguments: [
        save("ghost", "r1"), unsave("ghost", "r1"), addGrocery("ghost", "salt"), check("ghost", "salt"),
        removeGrocery("ghost", "salt"), use("ghost", "r1", "salt"), cart("ghost", "r1", 1), experience("ghost", "r1", "nice"),
    ])
    func everyUserCommandNamesAnExistingUser(_ command: Command) throws {
        var world = try World.withAlice()
        #expect(world.reject(command) == .unknownUser)
    }
}
