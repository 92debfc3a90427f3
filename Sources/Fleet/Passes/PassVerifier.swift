// Wallet's checks of a downloaded pass: manifest.json lists every other file with its SHA-1 and
// nothing else, and `signature` is a detached CMS signature over manifest.json that chains to a
// trusted root (for real passes Apple's; for development passes the development root).
//
// Threading: the trust store is built once and only read afterwards (X509_STORE is safe to share
// for verification); the fleet calls it from its loop thread.

import ByteEncoding
import Certificates
import Foundation
import PassBundle

final class PassVerifier: Sendable {
    private let store: CertificateStore
    /// SHA-1, fetched once: manifest.json's hashes.
    private let sha1: Digest

    /// Trusts the PEM certificates in `trustRoot`.
    init(trustRoot: String) throws(FleetError) {
        do throws(OpenSSLError) {
            store = try CertificateStore(trustingPEMFile: trustRoot)
            sha1 = try Digest.sha1()
        } catch {
            throw FleetError(.invalidConfiguration, error.description)
        }
    }

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
            let digest: [UInt8]
            do { digest = try sha1.hash(bytes) } catch { throw FleetError(.invalidPass, "cannot check \(name): \(error.description)") }
            guard manifest[name] == Hex.encode(digest) else { throw FleetError(.invalidPass, "SHA-1 of \(name) differs from manifest.json") }
        }
        try verifySignature(signature, over: manifestBytes)
    }

    private func verifySignature(_ signature: [UInt8], over content: [UInt8]) throws(FleetError) {
        do throws(OpenSSLError) {
            try CMSSignature(der: signature).verify(detachedContent: content, trusting: store)
        } catch {
            throw FleetError(.invalidPass, "the signature does not verify over manifest.json: \(error.description)")
        }
    }
}
