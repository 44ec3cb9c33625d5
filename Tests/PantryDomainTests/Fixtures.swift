import Foundation
import PantryDomain
import PantryKeys
import PantryTestSupport
import Testing

/// A real key store in a temporary file, for the sealed personal fields of events.
let testVault: UserKeyStore = {
    try! UserKeyStore(path: scratchPath("domain-keys", ".sqlite"), readOnly: false)
}()

/// The facts the adapter would send for a recipe: the command's own text as its only ingredient
/// (or salt), so that each test names its recipe's ingredient where it uses it.
func facts(title: String = "Soup", image: String? = nil, ingredients: [String] = ["salt"]) -> RecipeFacts {
    RecipeFacts(title: title, image: image, ingredients: ingredients)
}

/// A PHC string of the kind the adapters produce; only its shape matters to the rules.
let phcHash = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

func register(_ userId: UserID, _ username: String? = nil, email: String? = nil, hash: String = phcHash) -> Command {
    let name = username ?? "user_\(userId)"
    return .registerUser(RegisterUser(userId: userId, username: name, email: email ?? "\(name)@example.org", passwordHash: hash))
}

func save(_ userId: UserID, _ recipeId: RecipeID, title: String = "Soup", image: String? = nil) -> Command {
    .saveRecipe(SaveRecipe(userId: userId, recipeId: recipeId, recipe: facts(title: title, image: image)))
}

func unsave(_ userId: UserID, _ recipeId: RecipeID) -> Command {
    .removeSavedRecipe(RemoveSavedRecipe(userId: userId, recipeId: recipeId))
}

func addGrocery(_ userId: UserID, _ ingredient: String, amount: Double? = nil, unit: String? = nil, recipeId: RecipeID? = nil) -> Command {
    .addGrocery(AddGrocery(userId: userId, ingredient: ingredient, amount: amount, unit: unit, recipeId: recipeId))
}

func check(_ userId: UserID, _ ingredient: String, _ checked: Bool = true) -> Command {
    .checkGrocery(CheckGrocery(userId: userId, ingredient: ingredient, checked: checked))
}

func removeGrocery(_ userId: UserID, _ ingredient: String) -> Command {
    .removeGrocery(RemoveGrocery(userId: userId, ingredient: ingredient))
}

func use(_ userId: UserID, _ recipeId: RecipeID, _ ingredient: String, recipe: RecipeFacts? = nil) -> Command {
    .useOwnedIngredient(UseOwnedIngredient(userId: userId, recipeId: recipeId, ingredient: ingredient,
                                           recipe: recipe ?? facts(ingredients: [ingredient])))
}

func cart(_ userId: UserID, _ recipeId: RecipeID, _ delta: Int, title: String = "Soup", image: String? = nil) -> Command {
    .adjustCart(AdjustCart(userId: userId, recipeId: recipeId, delta: delta, recipe: facts(title: title, image: image)))
}

func cook(_ userId: UserID, _ recipeId: RecipeID, _ minutes: Int, recipe: RecipeFacts? = facts()) -> Command {
    .startCooking(StartCooking(userId: userId, recipeId: recipeId, minutes: minutes, recipe: recipe))
}

func experience(_ userId: UserID, _ recipeId: RecipeID, _ text: String) -> Command {
    .writeExperience(WriteExperience(userId: userId, recipeId: recipeId, text: text))
}

/// A state built only through `decide` and `evolve`, as the processor builds it, at `now`
/// (ms since 1970), which only the test moves.
struct World {
    var state: PantryState
    var events: [Event] = []
    /// When each of `events` was logged.
    var times: [Int64] = []
    var now: Int64 = 1_800_000_000_000
    private var counter = 0

    init(paces: Paces = .human) { state = PantryState(paces: paces) }

    /// A world with the user `u1` ("alice") registered.
    static func withAlice() throws -> World {
        var world = World()
        try world.accept(register("u1", "alice", email: "alice@example.org"))
        return world
    }

    mutating func nextId() -> CommandID {
        counter += 1
        return "cmd-\(counter)"
    }

    /// Decides and, when accepted, evolves the state.
    @discardableResult
    mutating func run(_ command: Command, commandId: CommandID? = nil) -> Result<[Event], Rejection> {
        let id = commandId ?? nextId()
        let result = Decider.decide(CommandEnvelope(commandId: id, command: command), state: state, at: now)
        if case .success(let new) = result {
            for event in new { Decider.evolve(&state, event, at: now) }
            events += new
            times += new.map { _ in now }
        }
        return result
    }

    /// Starts cooking the recipe (recording `recipe`, or one whose only ingredient is `ingredient`,
    /// the first time): what a point for it needs. No cart line.
    mutating func startCooking(_ userId: UserID, _ recipeId: RecipeID, recipe: RecipeFacts? = nil, ingredient: String = "salt",
                               minutes: Int = 30, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try accept(cook(userId, recipeId, minutes, recipe: recipe ?? facts(ingredients: [ingredient])), sourceLocation: sourceLocation)
    }

    /// Starts cooking the recipe, then runs `use`: a point that must be accepted.
    @discardableResult
    mutating func earn(_ userId: UserID, _ recipeId: RecipeID, _ ingredient: String, recipe: RecipeFacts? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> Event {
        if state.cooking[userId]?[recipeId] == nil {
            try startCooking(userId, recipeId, recipe: recipe, ingredient: ingredient, sourceLocation: sourceLocation)
        }
        return try accept(use(userId, recipeId, ingredient, recipe: recipe), sourceLocation: sourceLocation)
    }

    /// The events with their times, as a log holds them.
    var logged: [(event: Event, at: Int64)] { Array(zip(events, times)) }

    /// Runs a command that must be accepted and returns its single event (after the recipe's
    /// facts, when the command was the first about its recipe and recorded them).
    @discardableResult
    mutating func accept(_ command: Command, commandId: CommandID? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> Event {
        let result = run(command, commandId: commandId)
        let events = try #require(try? result.get(), "expected \(command) to be accepted, got \(result)",
                                  sourceLocation: sourceLocation)
        let own = events.filter { if case .recipeRecorded = $0 { false } else { true } }
        try #require(own.count == 1, sourceLocation: sourceLocation)
        return own[0]
    }

    /// Runs a command that must be refused, leaving the state as it was, and returns the code.
    mutating func reject(_ command: Command, commandId: CommandID? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) -> Rejection.Code? {
        let before = state
        let result = run(command, commandId: commandId)
        #expect(state == before, sourceLocation: sourceLocation)
        guard case .failure(let rejection) = result else {
            Issue.record("expected \(command) to be refused, got \(result)", sourceLocation: sourceLocation)
            return nil
        }
        return rejection.code
    }
}

extension Event {
    var userRegistered: UserRegistered? { if case .userRegistered(let e) = self { e } else { nil } }
    var recipeSaved: RecipeSaved? { if case .recipeSaved(let e) = self { e } else { nil } }
    var groceryAdded: GroceryAdded? { if case .groceryAdded(let e) = self { e } else { nil } }
    var groceryChecked: GroceryChecked? { if case .groceryChecked(let e) = self { e } else { nil } }
    var groceryRemoved: GroceryRemoved? { if case .groceryRemoved(let e) = self { e } else { nil } }
    var pointEarned: PointEarned? { if case .pointEarned(let e) = self { e } else { nil } }
    var cartAdjusted: CartAdjusted? { if case .cartAdjusted(let e) = self { e } else { nil } }
    var experienceWritten: ExperienceWritten? { if case .experienceWritten(let e) = self { e } else { nil } }
}

/// Checks that `json` holds exactly the stored properties of the payload inside `enumCase` (an
/// `Event` or a `Command`), found by reflection rather than by the code under test: nil ones
/// omitted, the others with the same values.
func expectJSONHoldsExactlyThePayloadsProperties(_ json: [String: Any], of enumCase: Any) throws {
    let payload = try #require(Mirror(reflecting: enumCase).children.first?.value)
    var expectedKeys: Set<String> = []
    for case let (label?, value) in Mirror(reflecting: payload).children {
        let mirror = Mirror(reflecting: value)
        guard let unwrapped = mirror.displayStyle == .optional ? mirror.children.first?.value : value else { continue }
        expectedKeys.insert(label)
        switch unwrapped {
        case let string as String: #expect(json[label] as? String == string, "\(label)")
        case let id as RecipeID: #expect(json[label] as? String == id.rawValue, "\(label)")
        case let double as Double: #expect((json[label] as? NSNumber)?.doubleValue == double, "\(label)")
        case let int as Int: #expect((json[label] as? NSNumber)?.intValue == int, "\(label)")
        case let int as Int64: #expect((json[label] as? NSNumber)?.int64Value == int, "\(label)")
        case let bool as Bool: #expect((json[label] as? NSNumber) == NSNumber(value: bool), "\(label)")
        case let strings as [String]: #expect(json[label] as? [String] == strings, "\(label)")
        case let facts as RecipeFacts:
            let nested = try #require(json[label] as? [String: Any], "\(label)")
            #expect(nested["title"] as? String == facts.title && nested["image"] as? String == facts.image
                    && nested["ingredients"] as? [String] == facts.ingredients && Set(nested.keys).isSubset(of: ["title", "image", "ingredients"]))
        default: Issue.record("\(label) has an unexpected type \(type(of: unwrapped))")
        }
    }
    #expect(Set(json.keys) == expectedKeys)
}
