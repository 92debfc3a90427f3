// Small helpers shared by every file that talks to OpenSSL: the error queue, memory BIOs,
// provider loading, DER/PEM conversions and ASN.1 time.
//
// Threading: everything here is re-entrant; OpenSSL 3 keeps its error queue per thread.

import COpenSSL
import Foundation

/// Reads OpenSSL's per-thread error queue.
enum OpenSSLErrorQueue {
    /// Returns every queued error string and empties the queue.
    static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }

    /// Empties the queue before an operation whose failure we want to attribute precisely.
    static func clear() { ERR_clear_error() }
}

/// Loads OpenSSL's "default" and "legacy" providers once per process.
///
/// Loading any provider explicitly disables the implicit default provider, so both are loaded.
/// "legacy" is needed for `.p12` files exported with RC2/3DES (older Keychain exports).
enum OpenSSLProviders {
    private static let loaded: Bool = {
        let defaultLoaded = OSSL_PROVIDER_load(nil, "default") != nil
        let legacyLoaded = OSSL_PROVIDER_load(nil, "legacy") != nil
        OpenSSLErrorQueue.clear()
        return defaultLoaded && legacyLoaded
    }()

    /// Makes sure the providers are loaded; returns false if "legacy" is unavailable.
    @discardableResult
    static func ensureLoaded() -> Bool { loaded }
}

/// An owned memory BIO.
final class MemoryBIO {
    let bio: OpaquePointer

    /// An empty, writable BIO.
    init?() {
        guard let method = BIO_s_mem(), let bio = BIO_new(method) else { return nil }
        self.bio = bio
    }

    /// A BIO holding a copy of `bytes` (BIO_new_mem_buf does not copy, so we write instead).
    convenience init?(bytes: [UInt8]) {
        self.init()
        if !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
            guard written == Int32(bytes.count) else { return nil }
        }
    }

    deinit { BIO_free(bio) }

    /// Everything written so far.
    var contents: [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>?
        let length = shim_BIO_get_mem_data(bio, &pointer)
        guard length > 0, let pointer else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}

/// Converts between OpenSSL's ASN1_TIME and Date.
enum ASN1Time {
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

/// Reads a whole file, turning failures into `CertificateError.unreadable` naming the file.
func readFileBytes(_ path: String, what: String) throws(CertificateError) -> [UInt8] {
    do {
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
        throw CertificateError(.unreadable, "cannot read \(what) file \(path)", path: path, underlying: error)
    }
}

/// True when the bytes look like PEM text rather than DER.
func looksLikePEM(_ bytes: [UInt8]) -> Bool {
    let marker = Array("-----BEGIN".utf8)
    guard bytes.count >= marker.count else { return false }
    for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
        if Array(bytes[start..<(start + marker.count)]) == marker { return true }
    }
    return false
}
