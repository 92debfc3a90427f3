import Foundation
import HTTPServer
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `StorageError` renders itself at the HTTP boundary: a database that is down or busy is a 503
/// `unavailable` with `Retry-After`; anything else is a generic 500. No driver text reaches the client.
@Suite("Storage errors over HTTP", .offCooperativePool)
struct StorageErrorRenderingTests {
    private static func body(_ response: Response) -> [String: String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (object?["error"] as? [String: String]) ?? [:]
    }

    @Test(arguments: [StorageError.Code.unavailable, .timeout])
    func transientIs503WithRetryAfter(code: StorageError.Code) {
        let error = StorageError(code, "PostgreSQL is unavailable", underlying: PGError(sqlState: "57P01", message: "terminating connection"))
        let response = error.response
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "5")
        #expect(response.headers["Content-Type"] == "application/json")
        let body = Self.body(response)
        #expect(body["code"] == "unavailable")
        #expect(body["message"]?.contains("try again") == true)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("57P01"))
        // Thrown as `any Error`, the server finds the conformance.
        let thrown: any Error = error
        #expect((thrown as? any RenderableError)?.status == 503)
    }

    @Test(arguments: [StorageError.Code.conflict, .notFound, .invalidValue, .migrationFailed, .backend])
    func everythingElseIsAGeneric500(code: StorageError.Code) {
        let error = StorageError(code, "row already exists", underlying: PGError(sqlState: "23505", message: "duplicate key value violates unique constraint \"passes_pkey\""))
        let response = error.response
        #expect(response.status == 500)
        #expect(response.headers["Retry-After"] == nil)
        let body = Self.body(response)
        #expect(body["code"] == "internal_error")
        #expect(body["message"] == HTTPError.internalError.message)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("passes_pkey"))
    }
}
