// The server side of `TLSContext`, for the fake APNs server that tests and benchmarks run
// against: the same transport as the client, seen from the other end.

import Certificates
import COpenSSL

extension TLSContext {
    /// A server context presenting the PEM chain in `certificateChainFile` with its key, choosing
    /// ALPN h2, and (with `clientCAFile`) requiring a client certificate issued by that CA.
    package static func server(certificateChainFile: String, privateKeyFile: String, clientCAFile: String?) throws(APNSError) -> TLSContext {
        do throws(OpenSSLError) {
            return try TLSContext(method: TLS_server_method()) { (context) throws(OpenSSLError) in
                try check(SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1, "load the server certificate \(certificateChainFile)")
                try check(
                    SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 && SSL_CTX_check_private_key(context) == 1,
                    "load the server key \(privateKeyFile)"
                )
                if let clientCAFile {
                    try check(SSL_CTX_load_verify_locations(context, clientCAFile, nil) == 1, "load the client CA \(clientCAFile)")
                    SSL_CTX_set_client_CA_list(context, try check(SSL_load_client_CA_file(clientCAFile), "read the client CA names"))
                    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
                }
                SSL_CTX_set_alpn_select_cb(context, selectH2, nil)
            }
        } catch {
            throw APNSError(code: .invalidConfiguration, openSSL: error)
        }
    }
}

/// Picks `h2` from the client's ALPN list; refuses clients that do not offer it.
private let selectH2: SSL_CTX_alpn_select_cb_func = { _, out, outLength, input, inputLength, _ in
    guard let out, let outLength, let input else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    var index = 0
    while index < Int(inputLength) {
        let length = Int(input[index])
        if length == 2, index + 2 < Int(inputLength), input[index + 1] == UInt8(ascii: "h"), input[index + 2] == UInt8(ascii: "2") {
            out.pointee = input + index + 1
            outLength.pointee = 2
            return SSL_TLSEXT_ERR_OK
        }
        index += 1 + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}
