import Foundation
import PantryWire

/// Sends a recipe request, already checked, to the fetch worker on behalf of `client` (whose
/// upstream budget it spends), and gives the worker's answer document as it came (a `FetchResult`,
/// with `reusableForMs` when it may be given again). Throws `PortUnavailable` when the worker is not
/// running (`notConnected`) or did not answer within `timeout` (nil: the port's own).
package protocol RecipePort: Sendable {
    func send(_ request: FetchRequest, client: String?, timeout: Duration?) async throws -> Data
}
