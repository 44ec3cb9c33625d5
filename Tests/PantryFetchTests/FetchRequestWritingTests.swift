import Foundation
import Testing
@testable import PantryFetch
import PantryWire

/// The API writes requests with `JSONObjectWriter`; the worker reads them with its decoder: every
/// kind must come back as it left, with who asks and the deadline.
@Suite struct FetchRequestWritingTests {
    static let requests: [FetchRequest] = [
        .byIngredients(ingredients: ["egg", "to\"ma\\to", "crème fraîche"], number: 7),
        .search(query: "soup\nnight", diet: "vegan", maxReadyTime: 30, offset: 20, number: 5),
        .search(query: "soup", diet: nil, maxReadyTime: nil, offset: 0, number: 10),
        .detail(id: "catalog:shakshuka"), .random(count: 3), .autocomplete(prefix: "av", number: 4),
        .image(url: "https://img.spoonacular.com/a.jpg"), .featured(day: "2026-11-25"),
        .liked(ids: ["catalog:shakshuka", "mealdb:52772"], day: "2026-11-25", number: 10),
        .feed(seed: .max, offset: 10, count: 10),
    ]

    @Test(arguments: requests) func aWrittenRequestReadsBackTheSame(request: FetchRequest) throws {
        let received = try FetchRequest.received(json: Data(request.json(client: "203.0.113.9", deadlineMs: 19_000)))
        #expect(received.request == request && received.client == "203.0.113.9" && received.deadline == 19)
        #expect(try FetchRequest.received(json: Data(request.json(client: nil, deadlineMs: 500))).client == nil)
    }
}
