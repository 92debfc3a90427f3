import Foundation
import HTTPServer

/// Serves `openapi.yaml` (read once from the working directory, where the repository and the
/// container image keep it).
enum OpenAPIController {
    static let path = "openapi.yaml"

    static func register(in router: inout Router) {
        let document = FileManager.default.contents(atPath: path).map(Array.init)
        router.get("/openapi.yaml") { _ in
            guard let document else { throw HTTPError.notFound("openapi.yaml is not installed next to this server.") }
            return Response(status: 200, headers: ["Content-Type": "application/yaml"], body: document)
        }
    }
}
