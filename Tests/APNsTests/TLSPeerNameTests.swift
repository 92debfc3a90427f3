import PassServerTesting
import Testing

@testable import APNs

/// The server name a connection checks is set for certain, or the connection attempt ends.
@Suite(.offCooperativePool) struct TLSPeerNameTests {
    @Test func aNameThatCannotBeSetEndsTheAttemptCleanly() throws {
        let context = try TLSContext(configuration: APNSConfiguration(clientCertificateDER: [], clientPrivateKeyDER: []))
        for host in ["api.push.apple.com", "127.0.0.1", "::1"] {
            try TLSConnection(context: context).expectPeer(host: host)
        }
        // SNI allows at most 255 bytes: OpenSSL refuses the name, and so does the connection.
        let connection = try TLSConnection(context: context)
        let error = try #require(throws: APNSError.self) { try connection.expectPeer(host: String(repeating: "a", count: 300)) }
        #expect(error.code == .tls)
        #expect(error.message.contains("TLS server name"))
    }
}
