import HTTPServer

/// `GET /assets/{name}`: the pages' stylesheet and scripts, compiled into the server so there is
/// no build step and nothing to fetch from elsewhere.
///
/// Add a script by adding its source to `files`; pages load it with `HTML.document(scripts:)`.
struct WebAssets: Sendable {
    /// File name → (content type, body).
    static let files: [String: (contentType: String, body: String)] = [
        "site.css": ("text/css; charset=utf-8", Stylesheet.site + "\n" + DashboardAssets.styles + "\n" + ScannerAssets.styles),
        "dashboard.js": ("text/javascript; charset=utf-8", DashboardAssets.script),
        "scanner.js": ("text/javascript; charset=utf-8", ScannerAssets.script),
    ]

    func register(in router: inout Router) {
        router.get("/assets/:name") { request in
            guard let name = request.parameters["name"], let file = Self.files[name] else {
                throw HTTPError.notFound("No such asset.")
            }
            return Response(
                status: 200,
                headers: [
                    "Content-Type": file.contentType,
                    "Cache-Control": "public, max-age=300",
                    "X-Content-Type-Options": "nosniff",
                ],
                body: Array(file.body.utf8)
            )
        }
    }
}
