// The OpenSSL context of a TLS connection: for the client, the trust store, client identity,
// TLS 1.2+ and ALPN h2; for the fake APNs server, its certificate and the client check
// (TLSContext+Server.swift). Built once; each connection's SSL object is made from it on the
// I/O thread.

import Certificates
import COpenSSL

/// Owns one `SSL_CTX`.
package final class TLSContext: @unchecked Sendable {
    // Safe because the SSL_CTX is fully configured in init and only read afterwards (SSL_new
    // takes its own reference); OpenSSL contexts are thread-safe for that use.

    /// The `SSL_CTX *`, valid while this object lives.
    let context: OpaquePointer

    /// Takes ownership of `context`; frees it if `configure` throws.
    init(
        method: OpaquePointer?, _ configure: (OpaquePointer) throws(OpenSSLError) -> Void
    ) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        context = try check(SSL_CTX_new(method), "create an SSL context")
        try check(shim_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1, "require TLS 1.2")
        // Let SSL_write be retried with a buffer that moved (our outbound buffer is a Swift array).
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        try configure(context)
    }

    deinit { SSL_CTX_free(context) }

    /// The APNs client's context: verifies the server against the system trust store (plus
    /// `caFile`), offers ALPN h2, and presents the configured client certificate and chain.
    convenience init(configuration: APNSConfiguration) throws(APNSError) {
        do throws(OpenSSLError) {
            try self.init(method: TLS_client_method()) { (context) throws(OpenSSLError) in
                try check(SSL_CTX_set_default_verify_paths(context) == 1, "load the system trust store")
                if let caFile = configuration.caFile {
                    try check(SSL_CTX_load_verify_locations(context, caFile, nil) == 1, "load the CA file \(caFile)")
                }
                SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
                let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
                try check(SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0, "offer ALPN h2")
            }
        } catch {
            throw APNSError(code: .invalidConfiguration, openSSL: error)
        }
        try installIdentity(configuration)
    }

    private func installIdentity(_ configuration: APNSConfiguration) throws(APNSError) {
        guard !configuration.clientCertificateDER.isEmpty || !configuration.clientPrivateKeyDER.isEmpty else { return }
        let certificate: X509Certificate
        let key: PrivateKey
        let chain: [X509Certificate]
        do throws(CertificateError) {
            certificate = try X509Certificate(der: configuration.clientCertificateDER, what: "client certificate")
            key = try PrivateKey(der: configuration.clientPrivateKeyDER)
            chain = try configuration.clientChainDER.map { der throws(CertificateError) in try X509Certificate(der: der, what: "chain certificate") }
        } catch {
            throw APNSError(code: .invalidConfiguration, message: error.message)
        }
        do throws(OpenSSLError) {
            try check(SSL_CTX_use_certificate(context, certificate.pointer) == 1, "use the client certificate")
            try check(
                SSL_CTX_use_PrivateKey(context, key.pointer) == 1 && SSL_CTX_check_private_key(context) == 1,
                "use the client private key: it does not match the certificate"
            )
            for intermediate in chain {
                try check(shim_SSL_CTX_add1_chain_cert(context, intermediate.pointer) == 1, "add a chain certificate")
            }
        } catch {
            throw APNSError(code: .invalidConfiguration, openSSL: error)
        }
    }
}

extension APNSError {
    /// An error whose cause is a failed OpenSSL call, with OpenSSL's reasons in the message.
    init(code: Code, openSSL error: OpenSSLError) {
        self.init(code: code, message: error.description, underlying: error)
    }

    /// An error that happened in OpenSSL without a `check`ed call (a handshake, a read): the
    /// thread's error queue, drained now, supplies the reasons.
    static func drainingOpenSSL(code: Code, _ message: String) -> APNSError {
        APNSError(code: code, openSSL: OpenSSLError(operation: message, queue: OpenSSLErrorQueue.drain()))
    }
}
