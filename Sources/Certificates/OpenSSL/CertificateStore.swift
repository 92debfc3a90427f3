import COpenSSL

/// An owned `X509_STORE`: the trusted roots a signature's chain must reach; deinit frees it.
package final class CertificateStore: @unchecked Sendable {
    // Safe because the store is filled in init and only read afterwards: OpenSSL allows one
    // X509_STORE to serve verifications on any number of threads.

    /// The `X509_STORE *`, valid while this object lives.
    let pointer: OpaquePointer

    /// Trusts every certificate in the PEM file at `path`, for any purpose (pass certificates
    /// carry no S/MIME purpose; Wallet checks the chain, not the purpose).
    package init(trustingPEMFile path: String) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        let store = try check(X509_STORE_new(), "create a trust store")
        do throws(OpenSSLError) {
            try check(X509_STORE_load_file(store, path) == 1, "load the trust root \(path)")
            try check(X509_STORE_set_purpose(store, X509_PURPOSE_ANY) == 1, "accept chains for any purpose")
        } catch {
            X509_STORE_free(store)
            throw error
        }
        pointer = store
    }

    deinit { X509_STORE_free(pointer) }
}
