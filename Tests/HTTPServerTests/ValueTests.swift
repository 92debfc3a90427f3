import Foundation
@testable import HTTPServer
import PassServerTesting
import Testing

@Suite(.offCooperativePool) struct ValueTests {
    @Test func headersAreOrderedAndCaseInsensitive() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add(name: "set-cookie", value: "a=1")
        headers.add(name: "Set-Cookie", value: "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        headers.replace(name: "SET-cookie", value: "c=3")
        #expect(headers.values(for: "set-cookie") == ["c=3"])
        headers.remove(name: "CONTENT-TYPE")
        #expect(headers["Content-Type"] == nil)
        #expect(headers.map(\.name) == ["SET-cookie"])
        headers["X-A"] = "1"
        headers["x-a"] = nil
        #expect(!headers.contains("X-A"))
    }

    @Test func queryDecodingHandlesPlusEscapesAndRepeats() throws {
        let items = try #require(PercentDecoding.queryItems("a=1+2&b=%C3%A9%26&a=second&flag&=empty&&c=x%3Dy"))
        #expect(items.map(\.name) == ["a", "b", "a", "flag", "", "c"])
        #expect(items.map(\.value) == ["1 2", "é&", "second", "", "empty", "x=y"])
        let request = Request(queryItems: items)
        #expect(request.query["a"] == "1 2")
        #expect(request.query["flag"] == "")
        #expect(PercentDecoding.queryItems("a=%G1") == nil)
        #expect(PercentDecoding.decode("a+b") == "a+b")
    }

    @Test func requestIDsAreReusedOnlyWhenWellFormed() {
        #expect(RequestID.resolve(incoming: "abc-DEF_1.2") == "abc-DEF_1.2")
        #expect(RequestID.resolve(incoming: String(repeating: "a", count: 64)) == String(repeating: "a", count: 64))
        for bad in ["", String(repeating: "a", count: 65), "a b", "a\r\nX-Evil: 1", "é"] {
            let resolved = RequestID.resolve(incoming: bad)
            #expect(resolved != bad)
            #expect(resolved.count == 32)
        }
        #expect(RequestID.generate() != RequestID.generate())
        // 32 lowercase hex digits, every digit value reachable.
        let generated = (0..<64).map { _ in RequestID.generate() }
        #expect(generated.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } })
        #expect(Set(generated.joined()).count == 16)
    }

    @Test func errorResponsesHaveTheJSONShape() throws {
        let response = Response.error(status: 418, code: "teapot", message: "Short \"and\" stout / spout.")
        #expect(response.status == 418)
        #expect(response.headers["Content-Type"] == "application/json")
        let decoded = try JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
        #expect(decoded == ErrorBody(error: .init(code: "teapot", message: "Short \"and\" stout / spout.")))
        let error = HTTPError(status: 429, code: "slow_down", message: "Later.", headers: ["Retry-After": "5"])
        #expect(error.response.headers["retry-after"] == "5")
        #expect(HTTPStatus.contentTooLarge.reasonPhrase == "Content Too Large")
        #expect(HTTPStatus.reasonPhrase(for: 799) == "Unknown")
    }

    @Test func jsonHelpersEncodeAndRejectBadBodies() throws {
        struct Payload: Codable, Equatable { var name: String; var count: Int }
        let response = Response.json(Payload(name: "x", count: 2), status: 201)
        #expect(response.status == 201)
        #expect(response.headers["Content-Type"] == "application/json")
        let request = Request(method: .POST, body: response.body)
        #expect(try request.decode(Payload.self) == Payload(name: "x", count: 2))
        for body in ["{", "[]", #"{"name":"x"}"#, #"{"name":1,"count":2}"#] {
            #expect {
                _ = try Request(body: Array(body.utf8)).decode(Payload.self)
            } throws: { error in
                (error as? HTTPError)?.status == 400 && (error as? HTTPError)?.code == "malformed_json"
            }
        }
    }

    @Test func configurationReportsEveryProblem() {
        let configuration = ServerConfiguration(port: 70000, maxHeaderSize: 10, threads: 0)
        #expect {
            try configuration.validate()
        } throws: { error in
            guard let error = error as? HTTPServerError, error.code == .invalidConfiguration else { return false }
            return error.message.contains("port") && error.message.contains("maxHeaderSize") && error.message.contains("threads")
        }
        #expect(ServerConfiguration(connectionTimeout: .milliseconds(1500)).connectionTimeoutSeconds == 2)
    }
}
