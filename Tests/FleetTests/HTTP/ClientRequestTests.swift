import PassServerTesting
import Testing

@testable import Fleet

@Suite("Fleet HTTP requests on the wire", .offCooperativePool)
struct ClientRequestTests {
    @Test("requests serialize with Host and Content-Length")
    func serialization() {
        let post = ClientRequest(method: "POST", target: "/a?b=c", headers: [("Authorization", "ApplePass x")], body: Array("{}".utf8))
        #expect(String(decoding: post.serialized(host: "127.0.0.1:8080"), as: UTF8.self)
            == "POST /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: ApplePass x\r\nContent-Length: 2\r\n\r\n{}")
        let get = ClientRequest(method: "GET", target: "/")
        #expect(String(decoding: get.serialized(host: "h"), as: UTF8.self) == "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    }
}
