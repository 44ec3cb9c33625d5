import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Behind a load balancer every request comes from the balancer's address, so per-client limits
/// would throttle all clients as one. For peers a deployment names (`PANTRY_TRUSTED_PROXIES`), the
/// client is the last `X-Forwarded-For` address, the one that proxy saw; anyone else's header is
/// ignored, so a client cannot pick its own address.
struct ForwardedClient: RouterMiddleware {
    static let header = HTTPField.Name("X-Forwarded-For")!
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        guard trustedProxies.contains(context.clientAddress),
              let forwarded = request.headers[values: Self.header].last?.split(separator: ",").last,
              let client = Self.ipAddress(forwarded.trimmingCharacters(in: .whitespaces)) else {
            return try await next(request, context)
        }
        var context = context
        context.clientAddress = client
        return try await next(request, context)
    }

    /// The address in its canonical spelling, or nil when the text is not an IP address.
    static func ipAddress(_ text: String) -> String? {
        (try? SocketAddress(ipAddress: text, port: 0))?.ipAddress
    }
}

extension HTTPSettings {
    /// The addresses of a comma- or space-separated list, or nil when one is not an IP address.
    package static func proxyAddresses(_ list: String) -> Set<String>? {
        let named = list.split(whereSeparator: { $0 == "," || $0 == " " })
        let addresses = named.compactMap { ForwardedClient.ipAddress(String($0)) }
        return addresses.count == named.count ? Set(addresses) : nil
    }
}
