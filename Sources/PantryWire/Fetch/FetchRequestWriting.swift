import PantryJSON

extension FetchRequest {
    /// The request as the fetch worker reads it (`FetchRequest.received`), with who asks and how
    /// many milliseconds they wait. Written by `JSONObjectWriter`, not `JSONEncoder`: the API sends
    /// one per recipe request, and the encoder's containers cost more than the rest of the send.
    package func json(client: String?, deadlineMs: Int) -> [UInt8] {
        var writer = JSONObjectWriter()
        writer.field("kind", kind.rawValue)
        switch self {
        case .byIngredients(let ingredients, let number):
            writer.field("ingredients", ingredients)
            writer.field("number", number)
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            writer.field("query", query)
            writer.field("diet", diet)
            if let maxReadyTime { writer.field("maxReadyTime", maxReadyTime) }
            writer.field("offset", offset)
            writer.field("number", number)
        case .detail(let id):
            writer.field("id", id)
        case .random(let count):
            writer.field("count", count)
        case .autocomplete(let prefix, let number):
            writer.field("prefix", prefix)
            writer.field("number", number)
        case .image(let url):
            writer.field("url", url)
        case .featured(let day):
            writer.field("day", day)
        case .liked(let ids, let day, let number):
            writer.field("ids", ids)
            writer.field("day", day)
            writer.field("number", number)
        case .feed(let seed, let offset, let count):
            writer.field("seed", json: String(seed).utf8)
            writer.field("offset", offset)
            writer.field("count", count)
        }
        writer.field("client", client)
        writer.field("deadlineMs", deadlineMs)
        return writer.finish()
    }
}
