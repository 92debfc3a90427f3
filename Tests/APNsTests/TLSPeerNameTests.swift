import COpenSSL
import PassServerTesting
import Testing

@testable import APNs

/// The server name a connection checks is set for certain, or the connection attempt ends.
@Suite(.offCooperativePool) struct TLSPeerNameTests {
    @Test func aNameThatCannotBeSetEndsTheAttemptCleanly() throws {
        let context = try TLSContext(configuration: APNSConfiguration(clientCertificateDER: [], clientPrivateKeyDER: []))
        for host in ["api.push.apple.com", "127.0.0.1", "::1"] {
            let ssl = try #require(SSL_new(context.context))
            defer { SSL_free(ssl) }
            try TLSContext.expectPeer(ssl, host: host)
        }
        // SNI allows at most 255 bytes: OpenSSL refuses the name, and so does the connection.
        let ssl = try #require(SSL_new(context.context))
        defer { SSL_free(ssl) }
        let error = try #require(throws: APNSError.self) { try TLSContext.expectPeer(ssl, host: String(repeating: "a", count: 300)) }
        #expect(error.code == .tls)
        #expect(error.message.contains("TLS server name"))
    }
}
