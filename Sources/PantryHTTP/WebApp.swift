import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PantryWeb

/// The web app (`Sources/PantryWeb/Web`, shipped as `PantryWeb`'s resources): its files where no API
/// route matches (`/` is `index.html`), the contract at `/openapi.yaml`, and at `/docs` a page that
/// renders it with ReDoc, whose script `ops/setup` puts in `.cache/docs` (PyPI
/// `drf-spectacular-sidecar`; `PANTRY_DOCS_ASSETS` to change). The router adds it after every
/// route, so it sees only the requests no route matches; `AccessLogMiddleware` gives every
/// response, its files' too, the headers that stop sniffing and cross-site referrers.
struct WebApp<Context: RequestContext>: RouterMiddleware {
    private let files: FileMiddleware<Context, LocalFileSystem>
    private let root: String
    private let docsAssets: String
    /// `sw.js` with its file list and cache name filled in (`ServiceWorker`), made once.
    private let serviceWorker: Result<Data, any Error>

    init(root: String, docsAssets: String, logger: Logger) {
        // Revalidated on every load, so a new release is seen at once (the service worker keeps copies offline).
        files = FileMiddleware(root, cacheControl: CacheControl([(MediaType(type: .any), [.noCache])]),
                               searchForIndexHtml: true, logger: logger)
        self.root = root
        self.docsAssets = docsAssets
        serviceWorker = Result { try ServiceWorker.script(root: URL(fileURLWithPath: root)) }
        if case .failure(let error) = serviceWorker {
            logger.error("the web app's service worker cannot be made; /sw.js answers 404 and the app works online only",
                         metadata: ["error": "\(error)"])
        }
    }


    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        switch path {
        case "/docs":
            return try docs()
        case "/sw.js":
            guard case .success(let script) = serviceWorker else {
                throw Problem(.notFound, detail: "the service worker is missing from the build")
            }
            return Response(status: .ok, headers: [.contentType: "text/javascript", .cacheControl: "no-cache"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: script)))
        case "/docs/redoc.standalone.js":
            let script = URL(fileURLWithPath: docsAssets).appendingPathComponent("redoc.standalone.js")
            guard let data = FileManager.default.contents(atPath: script.path) else {
                throw Problem(.notFound, detail: "the documentation renderer is not installed: run ops/setup")
            }
            return Response(status: .ok, headers: [.contentType: "text/javascript", .cacheControl: "public, max-age=86400"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        default:
            var response = try await files.handle(request, context: context, next: next)
            // One pass over the fields, no joined copies: the subscripts join every field of a name.
            var isPage = false, hasPolicy = false
            for field in response.headers {
                switch field.name {
                case .contentType: isPage = field.value.hasPrefix("text/html")
                case .contentSecurityPolicy: hasPolicy = true
                default: break
                }
            }
            if isPage, !hasPolicy { response.headers[.contentSecurityPolicy] = WebAppHeaders.pagePolicy }
            if path.hasSuffix(".yaml") { response.headers[.contentType] = "application/yaml" }
            return response
        }
    }

    /// ReDoc styles itself inline and parses in a worker: the page's policy allows that, nothing more.
    private func docs() throws -> Response {
        guard let page = FileManager.default.contents(atPath: URL(fileURLWithPath: root).appendingPathComponent("docs.html").path) else {
            throw Problem(.notFound, detail: "the documentation page is missing from the build")
        }
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy: "default-src 'self'; style-src 'self' 'unsafe-inline'; worker-src blob:; img-src 'self' data:; "
                + "font-src 'self' data:; frame-ancestors 'none'",
        ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: page)))
    }
}

/// Made once (a generic type has no stored statics).
private enum WebAppHeaders {
    /// What the app's own pages may do: load only from here, no inline script, no framing.
    static let pagePolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}
