// The fake's server-side OpenSSL context: its certificate, ALPN h2, and client certificate checks.

import COpenSSL

final class FakeAPNsTLS: @unchecked Sendable {
    // Safe because: configured once in init, only read afterwards (SSL_new from the fake's thread).
    let context: OpaquePointer

    init(configuration: FakeAPNs.Configuration) throws(FakeAPNsError) {
        guard let method = TLS_server_method(), let context = SSL_CTX_new(method) else {
            throw FakeAPNsError("cannot create an SSL context")
        }
        self.context = context
        _ = shim_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificatePath) == 1 else {
            throw FakeAPNsError("cannot load the server certificate \(configuration.certificatePath)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyPath, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(context) == 1
        else { throw FakeAPNsError("cannot load the server key \(configuration.privateKeyPath)") }
        if let clientCA = configuration.clientCAPath {
            guard SSL_CTX_load_verify_locations(context, clientCA, nil) == 1 else {
                throw FakeAPNsError("cannot load the client CA \(clientCA)")
            }
            if let names = SSL_load_client_CA_file(clientCA) { SSL_CTX_set_client_CA_list(context, names) }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
        SSL_CTX_set_alpn_select_cb(context, selectH2, nil)
        ERR_clear_error()
    }

    deinit { SSL_CTX_free(context) }
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
