import HTTPServer

/// `GET /`: nothing lives at the root, but someone who types the server's address into a
/// browser is looking for the dashboard, so a client that prefers HTML to JSON is sent to
/// `/admin/`. Everything else (API clients, `curl`, no `Accept`) keeps the JSON 404 of any
/// unknown path.
enum RootController {
    static func register(in router: inout Router) {
        router.get("/") { request in
            // The answer depends on `Accept`: a cache must not give a browser's redirect to curl.
            if ContentNegotiation.prefers("text/html", over: "application/json", accept: request.headers["Accept"]) {
                return Response(status: 303, headers: ["Location": "/admin/", "Cache-Control": "no-store", "Vary": "Accept"], body: [])
            }
            throw HTTPError(status: 404, code: "not_found", message: HTTPError.notFound().message, headers: ["Vary": "Accept"])
        }
    }
}
