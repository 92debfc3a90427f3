// The client-side OpenSSL context: trust store, client identity, TLS 1.2+, ALPN h2.
// Built once per APNSClient; SSL objects for each connection are made from it on the I/O thread.

import Certificates
import COpenSSL

/// Owns one `SSL_CTX` configured for APNs.
final class TLSContext: @unchecked Sendable {
    // Safe because: the SSL_CTX is fully configured in init and only read afterwards
    // (SSL_new takes its own reference); OpenSSL contexts are thread-safe for that use.
    let context: OpaquePointer

    init(configuration: APNSConfiguration) throws(APNSError) {
        guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else {
            throw Self.failure("cannot create an SSL context")
        }
        self.context = context
        guard shim_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw Self.failure("cannot require TLS 1.2")
        }
        // Let SSL_write be retried with a buffer that moved (our outbound buffer is a Swift array).
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw Self.failure("cannot load the system trust store") }
        if let caFile = configuration.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw Self.failure("cannot load the CA file \(caFile)")
            }
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else { throw Self.failure("cannot set ALPN") }
        try installIdentity(configuration)
    }

    deinit { SSL_CTX_free(context) }

    private func installIdentity(_ configuration: APNSConfiguration) throws(APNSError) {
        guard !configuration.clientCertificateDER.isEmpty || !configuration.clientPrivateKeyDER.isEmpty else { return }
        let certificate = try Self.certificate(configuration.clientCertificateDER, what: "client certificate")
        defer { X509_free(certificate) }
        guard SSL_CTX_use_certificate(context, certificate) == 1 else { throw Self.failure("client certificate rejected") }
        let key = try Self.privateKey(configuration.clientPrivateKeyDER)
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw Self.failure("client private key does not match the certificate")
        }
        for der in configuration.clientChainDER {
            let intermediate = try Self.certificate(der, what: "chain certificate")
            defer { X509_free(intermediate) }
            guard shim_SSL_CTX_add1_chain_cert(context, intermediate) == 1 else { throw Self.failure("chain certificate rejected") }
        }
    }

    private static func certificate(_ der: [UInt8], what: String) throws(APNSError) -> OpaquePointer {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw failure("\(what) is not DER X.509") }
        return parsed
    }

    private static func privateKey(_ der: [UInt8]) throws(APNSError) -> OpaquePointer {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count) else { return nil }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            return EVP_PKCS82PKEY(info)
        }
        guard let parsed else { throw failure("client private key is not PKCS#8 DER") }
        return parsed
    }

    /// An `.invalidConfiguration` error carrying the drained OpenSSL error queue.
    /// Makes `ssl` send `host` as SNI and accept only a server certificate issued for `host`
    /// (a name, or an IP address literal). Any of these calls failing would leave the connection
    /// without a name check, so a failure ends the connection attempt instead.
    static func expectPeer(_ ssl: OpaquePointer, host: String) throws(APNSError) {
        if SocketAddress.isIPLiteral(host) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw APNSError(code: .tls, message: "cannot require the server certificate to name IP address \(host)" + openSSLErrors())
            }
            return
        }
        guard shim_SSL_set_tlsext_host_name(ssl, host) == 1 else {
            throw APNSError(code: .tls, message: "cannot send \(host) as the TLS server name" + openSSLErrors())
        }
        guard SSL_set1_host(ssl, host) == 1 else {
            throw APNSError(code: .tls, message: "cannot require the server certificate to name \(host)" + openSSLErrors())
        }
    }

    static func failure(_ message: String) -> APNSError {
        APNSError(code: .invalidConfiguration, message: message + openSSLErrors())
    }
}

/// Drains OpenSSL's thread-local error queue into a readable suffix (`: reason; reason`).
func openSSLErrors() -> String {
    let reasons = OpenSSLErrorQueue.drain()
    return reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
}
