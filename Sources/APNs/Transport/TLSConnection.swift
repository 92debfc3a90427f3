// One connection's OpenSSL `SSL` object, made from a `TLSContext`: the client's peer-name check,
// and what the handshake left behind (the verify result and the ALPN choice).
//
// Threading: a TLSConnection belongs to the thread that polls its socket (see H2TLSChannel).

import Certificates
import COpenSSL

/// Owns one `SSL`; deinit frees it.
final class TLSConnection {
    /// The `SSL *`, valid while this object lives.
    let pointer: OpaquePointer

    /// A new `SSL` object with the context's settings, not yet bound to a socket.
    init(context: TLSContext) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        pointer = try check(SSL_new(context.context), "create the TLS session")
    }

    deinit { SSL_free(pointer) }

    /// Makes the connection send `host` as SNI and accept only a server certificate issued for
    /// `host` (a name, or an IP address literal). Any of these calls failing would leave the
    /// connection without a name check, so a failure ends the connection attempt instead.
    func expectPeer(host: String) throws(APNSError) {
        do throws(OpenSSLError) {
            if SocketAddress.isIPLiteral(host) {
                try check(X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(pointer), host) == 1, "require the server certificate to name IP address \(host)")
                return
            }
            try check(shim_SSL_set_tlsext_host_name(pointer, host) == 1, "send \(host) as the TLS server name")
            try check(SSL_set1_host(pointer, host) == 1, "require the server certificate to name \(host)")
        } catch {
            throw APNSError(code: .tls, openSSL: error)
        }
    }

    /// Why the peer's certificate was rejected, or nil when it was not (or not yet checked).
    var certificateRejection: String? {
        let verify = SSL_get_verify_result(pointer)
        guard verify != X509_V_OK else { return nil }
        return String(cString: X509_verify_cert_error_string(verify))
    }

    /// True when the handshake settled on ALPN `h2`.
    var negotiatedHTTP2: Bool {
        var alpn: UnsafePointer<UInt8>? = nil
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(pointer, &alpn, &alpnLength)
        guard let alpn, alpnLength == 2 else { return false }
        return alpn[0] == UInt8(ascii: "h") && alpn[1] == UInt8(ascii: "2")
    }
}
