import HTTPServer

/// `GET /assets/{name}`: the pages' stylesheet and scripts (`Web/Assets/`), compiled into the
/// server so there is no build step and nothing to fetch from elsewhere. Scripts are files, never
/// inline: the Content-Security-Policy allows only `script-src 'self'`.
///
/// Add a file to `Web/Assets/`, to the target's `resources` in Package.swift and to `files`;
/// pages load a script with `HTML.document(scripts:)`.
struct WebAssets: Sendable {
    /// File name → (content type, body).
    static let files: [String: (contentType: String, body: [UInt8])] = [
        "site.css": ("text/css; charset=utf-8", PackageResources.site_css),
        "dashboard.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_js),
        "scanner.js": ("text/javascript; charset=utf-8", PackageResources.scanner_js),
        "design.js": ("text/javascript; charset=utf-8", PackageResources.design_js),
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
                body: file.body
            )
        }
    }
}
