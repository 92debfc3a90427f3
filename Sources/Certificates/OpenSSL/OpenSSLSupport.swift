// Small helpers shared by the files that talk to OpenSSL: ASN.1 time, PEM detection, file reading
// and writing, NIDs.
//
// Threading: everything here is re-entrant; OpenSSL 3 keeps its error queue per thread.

import COpenSSL
import Foundation

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

/// Writes bytes to a file created with `mode` from the start, so a key is never world-readable.
func writeSecureFile(_ bytes: [UInt8], to path: String, mode: Int) throws(CertificateError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
    guard descriptor >= 0 else {
        throw CertificateError(.generationFailed, "cannot create \(path): \(String(cString: strerror(errno)))", path: path)
    }
    defer { close(descriptor) }
    // An existing file keeps its old mode through O_CREAT; set it explicitly.
    _ = fchmod(descriptor, mode_t(mode))
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written > 0 else {
            throw CertificateError(.generationFailed, "cannot write \(path): \(String(cString: strerror(errno)))", path: path)
        }
        offset += written
    }
}

/// OpenSSL NIDs we look up (named here once).
enum NIDs {
    static let userId = Int32(NID_userId)
    static let organizationalUnit = Int32(NID_organizationalUnitName)
}
