import Foundation
import Testing

@testable import PassServerTesting

@Suite("Ports a test server restarts on", .offCooperativePool)
struct RestartablePortTests {
    @Test("a free loopback port below the system's ephemeral range, where no outgoing connection takes it")
    func belowTheEphemeralRange() throws {
        let start = RestartablePort.ephemeralRangeStart()
        #expect(start >= 1_024)
        for _ in 0..<20 {
            let port = try RestartablePort.free()
            #expect(port >= 10_000 && port < start)
            #expect(RestartablePort.isFree(port))
        }
    }

    @Test("a port something listens on is not free")
    func takenIsNotFree() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(listening)
        let port = Int(UInt16(bigEndian: address.sin_port))
        #expect(!RestartablePort.isFree(port))
    }
}
