import Foundation
import Testing
@testable import PantryFetch
import PantryWire

@Suite struct ValidationTests {
    @Test(arguments: [
        FetchRequest.byIngredients(ingredients: [], number: 10),
        .byIngredients(ingredients: ["a", "b", "c", "d", "e", "f"], number: 10),
        .byIngredients(ingredients: ["egg", "  "], number: 10),
        .byIngredients(ingredients: ["egg,tomato"], number: 10),
        .byIngredients(ingredients: [String(repeating: "x", count: 65)], number: 10),
        .byIngredients(ingredients: ["egg"], number: 0),
        .search(query: "", diet: nil, maxReadyTime: nil, offset: 0, number: 10),
        .search(query: "pasta", diet: "carnivore", maxReadyTime: nil, offset: 0, number: 10),
        .search(query: "pasta", diet: nil, maxReadyTime: 0, offset: 0, number: 10),
        .search(query: "pasta", diet: nil, maxReadyTime: nil, offset: 901, number: 10),
        .search(query: "pasta", diet: nil, maxReadyTime: nil, offset: 0, number: 101),
        .detail(id: "716429"),
        .detail(id: "yummly:1"),
        .detail(id: "spoonacular:abc"),
        .detail(id: "catalog:Bad Slug"),
        .random(count: 0),
        .random(count: 101),
        .autocomplete(prefix: " ", number: 5),
        .autocomplete(prefix: "ap", number: 26),
        .image(url: "file:///etc/passwd"),
        .image(url: "not a url"),
    ])
    func badInputIsABadRequest(_ request: FetchRequest) {
        #expect {
            try request.validated()
        } throws: { error in
            guard case .badRequest(let message) = error as? FetchError else { return false }
            return !message.isEmpty
        }
    }

    @Test func validationNormalisesText() throws {
        let request = try FetchRequest.byIngredients(ingredients: [" Eggs ", "eggs", "Cherry  Tomatoes"], number: 5).validated()
        #expect(request == .byIngredients(ingredients: ["eggs", "cherry tomatoes"], number: 5))
        let search = try FetchRequest.search(query: " pasta  bake ", diet: "Vegan", maxReadyTime: 30, offset: 0, number: 5).validated()
        #expect(search == .search(query: "pasta bake", diet: "vegan", maxReadyTime: 30, offset: 0, number: 5))
    }

    @Test func canonicalKeysIgnoreOrderAndCase() throws {
        let a = try FetchRequest.byIngredients(ingredients: ["Tomato", "egg"], number: 10).validated()
        let b = try FetchRequest.byIngredients(ingredients: ["egg", "tomato"], number: 10).validated()
        #expect(CanonicalKey.of(a, provider: "spoonacular") == CanonicalKey.of(b, provider: "spoonacular"))
        #expect(CanonicalKey.of(a, provider: "spoonacular") != CanonicalKey.of(a, provider: "mealdb"))
        let c = try FetchRequest.byIngredients(ingredients: ["egg", "tomato"], number: 11).validated()
        #expect(CanonicalKey.of(b, provider: "spoonacular") != CanonicalKey.of(c, provider: "spoonacular"))
    }

    @Test func requestsDecodeFromFlatJSONWithDefaults() throws {
        let request = try FetchRequest.decode(json: Data(#"{"kind":"search","query":"soup","diet":"vegan"}"#.utf8))
        #expect(request == .search(query: "soup", diet: "vegan", maxReadyTime: nil, offset: 0, number: 10))
        let all: [FetchRequest] = [
            .byIngredients(ingredients: ["egg"], number: 3), .detail(id: "mealdb:52772"), .random(count: 10),
            .autocomplete(prefix: "ap", number: 5), .image(url: "https://img.spoonacular.com/a.jpg"),
        ]
        for original in all {
            #expect(try FetchRequest.decode(json: JSONEncoder().encode(original)) == original)
        }
    }

    @Test(arguments: [#"{"kind":"teleport"}"#, #"{"kind":"detail"}"#, #"{"kind":"random","count":"ten"}"#, "not json", ""])
    func malformedRequestJSONIsABadRequest(_ json: String) {
        #expect {
            try FetchRequest.decode(json: Data(json.utf8))
        } throws: { error in
            guard case .badRequest(let message) = error as? FetchError else { return false }
            return message.hasPrefix("invalid request")
        }
    }

    @Test func resultsRoundTripThroughJSON() throws {
        let results: [FetchResult] = [
            .success(FetchResponse(payload: .suggestions(["apple"]), origin: .staleCache, ageSeconds: 42, provider: "spoonacular")),
            .success(FetchResponse(payload: .image(ImageData(contentType: "image/png", bytes: Data([1, 2, 3]))), origin: .cache, ageSeconds: 1, provider: "images")),
            .failure(.quotaExhausted(retryAfterSeconds: 60)),
            .failure(.upstreamUnavailable(reason: "down")),
            .failure(.badRequest(message: "no")),
            .failure(.notFound),
        ]
        for result in results {
            #expect(try JSONDecoder().decode(FetchResult.self, from: JSONEncoder().encode(result)) == result)
        }
        let json = String(decoding: try JSONEncoder().encode(FetchResult.failure(.quotaExhausted(retryAfterSeconds: 5))), as: UTF8.self)
        #expect(json.contains(#""error":"quotaExhausted""#))
    }
}
