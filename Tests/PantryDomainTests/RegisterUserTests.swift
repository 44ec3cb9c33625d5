import Foundation
import PantryDomain
import Testing

@Suite struct RegisterUserTests {
    @Test(arguments: ["abc", "ABC", "a.b-c_d", "user_123", String(repeating: "z", count: 32), "1-2.3", "émile", "ánna",
                      "Zoë", "Ωmega", "李小龙", "ราดหน้า", "दीपिका"])
    func acceptsValidUsernames(_ username: String) throws {
        var world = World()
        let event = try world.accept(register("u1", username))
        #expect(event.userRegistered?.account?.username == username)
    }

    @Test func usernamesAreNFCNormalised() throws {
        var world = World()
        let event = try world.accept(register("u1", "a\u{0301}nna"))
        #expect(event.userRegistered?.account?.username == "\u{E1}nna")
    }

    @Test(arguments: ["", "ab", String(repeating: "z", count: 33), "a b", "abc!", "abc\n", "ab@c", " abc", "ab/c",
                      "an\u{200B}na", "anna\u{202E}", "_anna", "\u{0301}anna", "🍅🍅🍅"])
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

    /// UTS #39 skeletons: a name that looks like a taken one is taken.
    @Test(arguments: ["ＡＬＩＣＥ", "\u{0430}lice", "аlicе", "alıce", "ALICE", "a\u{006C}ice"])
    func lookAlikesOfATakenNameAreTaken(_ lookalike: String) throws {
        var world = try World.withAlice()
        #expect(world.reject(register("u2", lookalike, email: "b@example.org")) == .usernameTaken)
    }

    @Test func anAccentedNameIsAcceptedAndTheSameNameInAnotherNormalFormIsTaken() throws {
        var world = World()
        let event = try world.accept(register("u1", "a\u{0301}nna", email: "anna1@example.org"))
        #expect(event.userRegistered?.account?.username == "\u{E1}nna")
        #expect(world.reject(register("u2", "\u{E1}nna", email: "anna2@example.org")) == .usernameTaken)
        #expect(world.reject(register("u2", "\u{C1}NNA", email: "anna2@example.org")) == .usernameTaken)
    }

    /// Full-width, a Cyrillic а, an invisible zero-width space, another case: none is another name.
    @Test(arguments: [("\u{FF21}\u{FF4E}\u{FF4E}\u{FF41}", Rejection.Code.usernameTaken), ("\u{0430}nna", .usernameTaken),
                      ("an\u{200B}na", .invalidUsername), ("ANNA", .usernameTaken)])
    func namesThatLookLikeAnnaAreRefusedOnceAnnaExists(_ lookalike: String, _ code: Rejection.Code) throws {
        var world = World()
        try world.accept(register("u1", "anna", email: "anna@example.org"))
        #expect(world.reject(register("u2", lookalike, email: "other@example.org")) == code)
        try world.accept(register("u2", "anne", email: "other@example.org"))
    }

    @Test func aDeletedUsersCommandsAreRefusedAsFromAnUnknownUser() throws {
        var world = try World.withAlice()
        try world.earn("u1", "r1", "salt")
        try world.accept(addGrocery("u1", "salt"))
        try world.accept(.deleteUser(DeleteUser(userId: "u1")))
        for command in [save("u1", "r2"), unsave("u1", "r1"), addGrocery("u1", "pepper"), check("u1", "salt"),
                        removeGrocery("u1", "salt"), use("u1", "r1", "salt"), cart("u1", "r1", 1), experience("u1", "r1", "nice"),
                        .changePassword(ChangePassword(userId: "u1", passwordHash: phcHash))] {
            #expect(world.reject(command) == .unknownUser, "\(command)")
        }
        // Their data went with them, and the name and email can be someone else's.
        #expect(world.state.usedIngredients["u1"] == nil && world.state.groceries["u1"] == nil)
        try world.accept(register("u7", "ALICE", email: "Alice@Example.org"))
        #expect(world.state.usernames.contains(world.state.nameKey.username("alice")) && world.state.users["u7"] != nil)
    }

    @Test func aDeletedUsersNameAndEmailAreFreeAgainButNotTheirId() throws {
        var world = try World.withAlice()
        let deleted = try world.accept(.deleteUser(DeleteUser(userId: "u1")))
        #expect(deleted == .userDeleted(UserDeleted(userId: "u1")))
        #expect(world.state.users["u1"] == nil && world.state.deletedUsers == ["u1"])
        #expect(world.reject(save("u1", "r1")) == .unknownUser)
        #expect(world.reject(.deleteUser(DeleteUser(userId: "u1"))) == .unknownUser)
        #expect(world.reject(register("u1", "bob", email: "bob@example.org")) == .userExists)
        try world.accept(register("u2", "alice", email: "alice@example.org"))
    }

    @Test func aNewPasswordIsAcceptedWithAValidHash() throws {
        var world = try World.withAlice()
        let argon = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG"
        #expect(try world.accept(.changePassword(ChangePassword(userId: "u1", passwordHash: argon)))
                == .passwordChanged(PasswordChanged(userId: "u1", passwordHash: argon)))
        #expect(world.reject(.changePassword(ChangePassword(userId: "u1", passwordHash: "hunter2"))) == .invalidPasswordHash)
        #expect(world.reject(.changePassword(ChangePassword(userId: "ghost", passwordHash: argon))) == .unknownUser)
    }

    @Test(arguments: ["a@b.co", "first.last+tag@example.org", "Mixed.Case@Example.ORG", "x@sub.domain.example"])
    func acceptsWellFormedEmails(_ email: String) throws {
        var world = World()
        let event = try world.accept(register("u1", "alice", email: email))
        #expect(event.userRegistered?.account?.email == email)
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
        let data = try EventCoding.encode(event, vault: testVault)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys) == ["userId", "sealed"], "personal fields only sealed")
        #expect(!String(decoding: data, as: UTF8.self).contains("alice"))
        #expect(try EventCoding.decode(type: "UserRegistered", schemaVersion: 2, data: data, vault: testVault) == event)
    }

    @Test func registeringUpdatesTheState() throws {
        let world = try World.withAlice()
        let key = world.state.nameKey
        #expect(world.state.users["u1"]?.names == PantryState.Names(username: key.username("alice"), email: key.email("alice@example.org")))
        #expect(world.state.usernames.contains(key.username("Alice")))
        #expect(world.state.emails.contains(key.email("ALICE@example.org")))
    }

    @Test(arguments: [
        save("ghost", "r1"), unsave("ghost", "r1"), addGrocery("ghost", "salt"), check("ghost", "salt"),
        removeGrocery("ghost", "salt"), use("ghost", "r1", "salt"), cart("ghost", "r1", 1), experience("ghost", "r1", "nice"),
        .changePassword(ChangePassword(userId: "ghost", passwordHash: phcHash)), .deleteUser(DeleteUser(userId: "ghost")),
    ])
    func everyUserCommandNamesAnExistingUser(_ command: Command) throws {
        var world = try World.withAlice()
        #expect(world.reject(command) == .unknownUser)
    }
}
