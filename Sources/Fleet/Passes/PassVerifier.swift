// Wallet's checks of a downloaded pass: manifest.json lists every other file with its SHA-1 and
// nothing else, and `signature` is a detached CMS signature over manifest.json that chains to a
// trusted root (for real passes Apple's; for development passes the development root).
//
// Threading: the trust store is built once and only read afterwards (X509_STORE is safe to share
// for verification); the fleet calls it from its loop thread.

import Certificates
import COpenSSL
import Foundation
import PassBundle

final class PassVerifier: @unchecked Sendable {
    // Safe because: `store` is configured in init and only read by CMS_verify afterwards.
    private let store: OpaquePointer

    /// Trusts the PEM certificates in `trustRoot`.
    init(trustRoot: String) throws(FleetError) {
        guard let store = X509_STORE_new() else { throw FleetError(.invalidConfiguration, "cannot create a trust store") }
        guard X509_STORE_load_file(store, trustRoot) == 1 else {
            X509_STORE_free(store)
            ERR_clear_error()
            throw FleetError(.invalidConfiguration, "cannot load the trust root \(trustRoot)")
        }
        // Pass certificates carry no S/MIME purpose; Wallet checks the chain, not the purpose.
        _ = X509_STORE_set_purpose(store, X509_PURPOSE_ANY)
        self.store = store
    }

    deinit { X509_STORE_free(store) }

    /// Throws unless the files are a complete, correctly signed pass.
    func verify(_ files: [String: [UInt8]]) throws(FleetError) {
        guard let manifestBytes = files["manifest.json"], let signature = files["signature"] else {
            throw FleetError(.invalidPass, "manifest.json or signature missing")
        }
        guard let manifest = (try? JSONSerialization.jsonObject(with: Data(manifestBytes))) as? [String: String] else {
            throw FleetError(.invalidPass, "manifest.json is not an object of strings")
        }
        let content = Set(files.keys).subtracting(["manifest.json", "signature"])
        guard Set(manifest.keys) == content else { throw FleetError(.invalidPass, "manifest.json does not list exactly the files") }
        for (name, bytes) in files where content.contains(name) {
            guard let digest = try? Digest.sha1().hash(bytes), manifest[name] == Hex.encode(digest) else { throw FleetError(.invalidPass, "SHA-1 of \(name) differs from manifest.json") }
        }
        try verifySignature(signature, over: manifestBytes)
    }

    private func verifySignature(_ signature: [UInt8], over content: [UInt8]) throws(FleetError) {
        ERR_clear_error()
        defer { ERR_clear_error() }
        let verified = signature.withUnsafeBytes { signatureBuffer in
            content.withUnsafeBytes { contentBuffer -> Bool in
                guard let signatureBIO = BIO_new_mem_buf(signatureBuffer.baseAddress, Int32(signatureBuffer.count)) else { return false }
                defer { BIO_free(signatureBIO) }
                guard let cms = d2i_CMS_bio(signatureBIO, nil) else { return false }
                defer { CMS_ContentInfo_free(cms) }
                guard let contentBIO = BIO_new_mem_buf(contentBuffer.baseAddress, Int32(contentBuffer.count)) else { return false }
                defer { BIO_free(contentBIO) }
                return CMS_verify(cms, nil, store, contentBIO, nil, UInt32(CMS_BINARY)) == 1
            }
        }
        guard verified else { throw FleetError(.invalidPass, "the signature does not verify over manifest.json") }
    }
}
