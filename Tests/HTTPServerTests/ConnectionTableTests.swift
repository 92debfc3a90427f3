import PassServerTesting
import Testing

@testable import HTTPServer

/// The connection table's two caps, without sockets.
@Suite("Connection table: the server's cap and each client's", .offCooperativePool)
struct ConnectionTableTests {
    static let proxy = AddressRange("10.0.0.0/8")!
    static let client = IPAddress("203.0.113.7")!
    static let other = IPAddress("203.0.113.8")!
    static let viaProxy = IPAddress("10.0.0.1")!

    @Test("the total counts every connection, trusted proxies included, and a close frees a slot")
    func total() {
        var table = ConnectionTable(limit: 2, totalLimit: 3, trusted: [Self.proxy])
        #expect(table.admit(Self.client, thread: 1) == nil)
        table.start(1, fd: 10, peer: Self.client, thread: 1, deadline: RequestDeadline(waitingSince: .now))
        #expect(table.admit(Self.viaProxy, thread: 1) == nil)
        table.start(2, fd: 11, peer: Self.viaProxy, thread: 1, deadline: RequestDeadline(waitingSince: .now))
        #expect(table.admit(Self.other, thread: 2) == nil)
        table.start(3, fd: 12, peer: Self.other, thread: 2, deadline: RequestDeadline(waitingSince: .now))
        #expect(table.total == 3)
        #expect(table.admit(Self.viaProxy, thread: 1) == .full)
        #expect(table.admit(Self.other, thread: 2) == .full)
        table.close(2)
        #expect(table.total == 2)
        #expect(table.admit(Self.other, thread: 2) == nil)
        #expect(table.count(for: Self.other) == 2)
    }

    @Test("the client's cap refuses before the total is reached, and a refusal takes no slot")
    func perClient() {
        var table = ConnectionTable(limit: 1, totalLimit: 10, trusted: [])
        #expect(table.admit(Self.client, thread: 1) == nil)
        table.start(1, fd: 10, peer: Self.client, thread: 1, deadline: RequestDeadline(waitingSince: .now))
        #expect(table.admit(Self.client, thread: 1) == .tooManyFromClient)
        #expect(table.total == 1)
        #expect(table.count(for: Self.client) == 1)
    }

    @Test("a slot admitted but never started is freed by the next admit on that thread")
    func staleAdmission() {
        var table = ConnectionTable(limit: 5, totalLimit: 1, trusted: [])
        #expect(table.admit(Self.client, thread: 1) == nil)
        // libmicrohttpd failed to set that connection up: it never starts.
        #expect(table.admit(Self.other, thread: 2) == .full)
        #expect(table.admit(Self.other, thread: 1) == nil)
        #expect(table.count(for: Self.client) == 0)
        #expect(table.total == 1)
        // A close of a connection nobody admitted frees nothing.
        table.start(9, fd: 19, peer: Self.client, thread: 7, deadline: RequestDeadline(waitingSince: .now))
        table.close(9)
        #expect(table.total == 1)
    }

    @Test("the deadline: a wait expires once, an arrived request does not, and the next request waits anew")
    func deadline() {
        let start = ContinuousClock.now
        var table = ConnectionTable(limit: 5, totalLimit: 5, trusted: [])
        let slow = RequestDeadline(waitingSince: start)
        let served = RequestDeadline(waitingSince: start)
        #expect(table.admit(Self.client, thread: 1) == nil)
        table.start(1, fd: 10, peer: Self.client, thread: 1, deadline: slow)
        #expect(table.admit(Self.other, thread: 1) == nil)
        table.start(2, fd: 11, peer: Self.other, thread: 1, deadline: served)
        served.answered()
        // Before the timeout nothing expires; at it, only the connection still waiting, once.
        #expect(table.expire(now: start + .seconds(9), timeout: .seconds(10)).isEmpty)
        #expect(table.expire(now: start + .seconds(10), timeout: .seconds(10)).map(\.fd) == [10])
        #expect(table.expire(now: start + .seconds(30), timeout: .seconds(10)).isEmpty)
        // The served connection's next request waits from when the last one ended.
        served.awaitNext(now: start + .seconds(20))
        #expect(table.expire(now: start + .seconds(29), timeout: .seconds(10)).isEmpty)
        #expect(table.expire(now: start + .seconds(30), timeout: .seconds(10)).map(\.fd) == [11])
    }
}
