import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// `X-Forwarded-For` is believed only from trusted proxies, and only from the right.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct ClientAddressTests {
    static let proxy = [AddressRange("127.0.0.1/32"), AddressRange("10.0.0.0/8"), AddressRange("fd00::/8")].compactMap { $0 }

    static func resolve(_ peer: String, _ forwarded: [String]) -> String? {
        ClientAddress.resolve(peer: IPAddress(peer), forwardedFor: forwarded, trusted: proxy)?.description
    }

    @Test func addressesAndRangesParse() throws {
        #expect(IPAddress("203.0.113.7")?.description == "203.0.113.7")
        #expect(IPAddress("::ffff:203.0.113.7") == IPAddress("203.0.113.7"), "IPv4-mapped is the same client")
        #expect(IPAddress("2001:DB8:0:0::1")?.description == "2001:db8::1")
        for bad in ["", "unknown", "1.2.3", "1.2.3.4:80", "01.2.3.4", "fe80::1%eth0", "[::1]", "example.com", " 1.2.3.4"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        let range = try #require(AddressRange("10.1.2.3/8"))
        #expect(range.description == "10.0.0.0/8")
        #expect(range.contains(try #require(IPAddress("10.255.0.1"))))
        #expect(!range.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(try #require(AddressRange("::1")).contains(try #require(IPAddress("::1"))))
        #expect(try #require(AddressRange("0.0.0.0/0")).contains(try #require(IPAddress("8.8.8.8"))))
        #expect(!(try #require(AddressRange("0.0.0.0/0"))).contains(try #require(IPAddress("2001:db8::1"))), "IPv4 /0 is IPv4 only")
        #expect(try #require(AddressRange("::/0")).contains(try #require(IPAddress("2001:db8::1"))))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "x/8", "10.0.0.0/+8"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
        #expect(AddressRange.loopback.contains(try #require(IPAddress("127.8.9.10"))))
        #expect(AddressRange.loopback.contains(try #require(IPAddress("::1"))))
    }

    @Test func theRightmostUntrustedEntryIsTheClient() {
        // An untrusted peer is the client; whatever it forwards is ignored.
        #expect(Self.resolve("198.51.100.1", ["203.0.113.9"]) == "198.51.100.1")
        // A trusted peer: the rightmost entry that is not a proxy; entries left of it are the client's own.
        #expect(Self.resolve("127.0.0.1", ["203.0.113.9"]) == "203.0.113.9")
        #expect(Self.resolve("127.0.0.1", ["6.6.6.6, 7.7.7.7, 203.0.113.9"]) == "203.0.113.9")
        #expect(Self.resolve("127.0.0.1", ["6.6.6.6, 203.0.113.9, 10.0.0.5"]) == "203.0.113.9", "through two proxies")
        // Several header lines are one list, in order.
        #expect(Self.resolve("127.0.0.1", ["6.6.6.6", "203.0.113.9, 10.0.0.5"]) == "203.0.113.9")
        #expect(Self.resolve("127.0.0.1", ["203.0.113.9", "10.0.0.5"]) == "203.0.113.9")
        // No header: the peer. Only proxies: the leftmost.
        #expect(Self.resolve("127.0.0.1", []) == "127.0.0.1")
        #expect(Self.resolve("127.0.0.1", ["10.0.0.7, 10.0.0.5"]) == "10.0.0.7")
        // Brackets, spaces and IPv6.
        #expect(Self.resolve("127.0.0.1", ["  [2001:db8::7] "]) == "2001:db8::7")
        #expect(Self.resolve("127.0.0.1", ["::ffff:203.0.113.9"]) == "203.0.113.9")
    }

    @Test func aMalformedEntryStopsTheWalkAtTheHopThatHandedItOver() {
        // Garbage right behind the peer: the peer is the client (it cannot be trusted to have meant anything).
        #expect(Self.resolve("127.0.0.1", ["203.0.113.9, unknown"]) == "127.0.0.1")
        #expect(Self.resolve("127.0.0.1", ["203.0.113.9,"]) == "127.0.0.1", "an empty item is malformed")
        #expect(Self.resolve("127.0.0.1", ["203.0.113.9:4711"]) == "127.0.0.1", "a port is malformed")
        // Garbage behind a trusted proxy: that proxy.
        #expect(Self.resolve("127.0.0.1", ["203.0.113.9, bogus, 10.0.0.5"]) == "10.0.0.5")
        // Garbage left of the client is never read.
        #expect(Self.resolve("127.0.0.1", ["bogus, 203.0.113.9"]) == "203.0.113.9")
        #expect(Self.resolve("127.0.0.1", [String(repeating: "9", count: 5_000) + ", 203.0.113.9"]) == "203.0.113.9")
    }

    @Test func overSocketsTheClientAddressReachesHandlerAndLog() throws {
        var router = Router()
        router.get("/who") { request in .text("\(request.peerAddress) \(request.clientAddress)") }
        try TestServer.with(router, configure: { $0.trustedProxies = [AddressRange("127.0.0.1/32")].compactMap { $0 } }) { server in
            let trusted = try server.client().request("GET", "/who", headers: [("X-Forwarded-For", "6.6.6.6, 203.0.113.9")])
            #expect(trusted.text == "127.0.0.1 203.0.113.9")
            let untrusted = try server.client(source: "127.0.0.2").request("GET", "/who", headers: [("X-Forwarded-For", "203.0.113.9")])
            #expect(untrusted.text == "127.0.0.2 127.0.0.2", "an untrusted peer's X-Forwarded-For is ignored")
            let lines = server.sink.lines.filter { $0.contains(" request ") && $0.contains("path=/who") }
            #expect(lines.contains { $0.contains("client=203.0.113.9") && $0.contains("peer=127.0.0.1") })
            #expect(lines.contains { $0.contains("client=127.0.0.2") && $0.contains("peer=127.0.0.2") })
        }
    }
}
