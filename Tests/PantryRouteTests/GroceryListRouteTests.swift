import Foundation
import PantryTestRuntime
import Testing

/// The grocery list as a shopping list: convertible units sum, singular and plural are one item,
/// what was bought stays bought when more is added, and the list reads in aisle order. The sums
/// against an independent units library stay in pytest (Tests/system/test_groceries.py, pint).
extension APIRouteTests {
@Suite struct GroceryListRouteTests {
    @Test func aShoppingTrip() async throws {
        try await InProcessDeployment.run { api, _ in
            let (_, token) = try await api.registerAndLogIn("shopper")
            func add(_ body: [String: Any]) async throws -> Int {
                try await api.post("/v1/me/groceries", body, token: token).ok(201)["position"] as? Int ?? -1
            }
            func check(_ item: String) async throws -> Int {
                try await api.call(.patch, "/v1/me/groceries/\(item)", json: ["checked": true], token: token).ok()["position"] as? Int ?? -1
            }
            /// The list in its order, each item by its key.
            func groceries(after position: Int) async throws -> [(key: String, item: [String: Any])] {
                try #require(try await api.get("/v1/me/groceries?after=\(position)", token: token).ok().objects("result"))
                    .map { ($0["item"] as? String ?? "", $0) }
            }
            func item(_ key: String, after position: Int) async throws -> [String: Any] {
                try #require(try await groceries(after: position).first { $0.key == key }?.item, "no \(key)")
            }
            _ = try await add(["ingredient": "Flour", "amount": 500, "unit": "g"])
            _ = try await add(["ingredient": "Tomatoes", "amount": 3])
            _ = try await add(["ingredient": "flour", "amount": 1, "unit": "kg"])
            _ = try await add(["ingredient": "Milk", "amount": 2, "unit": "tbsp"])
            _ = try await add(["ingredient": "milk", "amount": 1, "unit": "cup"])
            var position = try await add(["ingredient": "tomato", "amount": 2])
            let items = try await groceries(after: position)
            let byKey = Dictionary(items, uniquingKeysWith: { first, _ in first })
            #expect(amounts(byKey["flour"]?["amounts"]) == ["1.5 kg"])
            #expect(amounts(byKey["tomato"]?["amounts"]) == ["5.0"] && byKey["tomato"]?["ingredient"] as? String == "Tomatoes")
            #expect(amounts(byKey["milk"]?["amounts"]) == ["266.162 ml"])
            // Produce, dairy, baking: the order a shop is walked.
            #expect(items.map(\.key) == ["tomato", "milk", "flour"])
            #expect(items.map { $0.item["aisle"] as? String } == ["Produce", "Milk, Eggs, Other Dairy", "Baking"])

            // Bought the flour; the recipe needs 100 g more: 100 g to buy, the 1.5 kg stays bought.
            _ = try await check("Flours")
            position = try await add(["ingredient": "flour", "amount": 100, "unit": "grams"])
            var flour = try await item("flour", after: position)
            #expect(flour["checked"] as? Bool == false)
            #expect(amounts(flour["amounts"]) == ["100.0 g"] && amounts(flour["bought"]) == ["1.5 kg"])
            position = try await check("flour")
            flour = try await item("flour", after: position)
            #expect(amounts(flour["amounts"]) == [] && amounts(flour["bought"]) == ["1.6 kg"])
            #expect(try await groceries(after: position).last?.key == "flour", "checked items last")
            position = try await api.call(.delete, "/v1/me/groceries/TOMATO", token: token).ok()["position"] as? Int ?? -1
            #expect(try await !groceries(after: position).contains { $0.key == "tomato" })
        }
    }
}
}
