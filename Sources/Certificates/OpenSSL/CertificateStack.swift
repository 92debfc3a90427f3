import COpenSSL

/// An owned `STACK_OF(X509)` that holds its own reference to every certificate in it; deinit frees
/// the stack and drops those references.
package final class CertificateStack {
    /// The `STACK_OF(X509) *`, valid while this object lives.
    package let pointer: OpaquePointer

    /// An empty stack.
    package init() throws(OpenSSLError) {
        pointer = try check(shim_sk_X509_new_null(), "allocate a certificate stack")
    }

    /// Takes ownership of a stack, and of the references it holds, that OpenSSL handed out.
    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    /// A stack holding `certificates`, in order.
    package convenience init(_ certificates: [X509Certificate]) throws(OpenSSLError) {
        try self.init()
        for certificate in certificates { try append(certificate) }
    }

    deinit { shim_sk_X509_pop_free(pointer) }

    /// Adds a reference to `certificate` at the end.
    package func append(_ certificate: X509Certificate) throws(OpenSSLError) {
        try check(X509_up_ref(certificate.pointer) == 1, "reference a certificate")
        guard shim_sk_X509_push(pointer, certificate.pointer) > 0 else {
            X509_free(certificate.pointer)
            throw OpenSSLError(operation: "add a certificate to a stack", queue: OpenSSLErrorQueue.drain())
        }
    }

    /// The certificates, each with a reference of its own (they outlive the stack).
    package func certificates() throws(OpenSSLError) -> [X509Certificate] {
        var result: [X509Certificate] = []
        for index in 0..<shim_sk_X509_num(pointer) {
            let item = try check(shim_sk_X509_value(pointer, index), "read certificate \(index) of a stack")
            try check(X509_up_ref(item) == 1, "reference a certificate")
            result.append(X509Certificate(owning: item))
        }
        return result
    }
}
