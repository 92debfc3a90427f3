// Throwaway certificates for the APNs tests, made with the `openssl` CLI in a temp directory.
// Kept in this one file so it can be swapped for the shared test CA helper later.

import Foundation
import Synchronization

/// A test CA with a server certificate (127.0.0.1/localhost) and a client certificate, plus a
/// second, untrusted CA with its own server and client certificates.
struct APNsTestPKI: Sendable {
    let directory: String
    var caPath: String { directory + "/ca.pem" }
    var serverCertificatePath: String { directory + "/server.pem" }
    var serverKeyPath: String { directory + "/server.key" }
    var untrustedServerCertificatePath: String { directory + "/other-server.pem" }
    var untrustedServerKeyPath: String { directory + "/other-server.key" }
    /// The trusted client identity as APNSConfiguration wants it (DER certificate, PKCS#8 DER key).
    let clientCertificateDER: [UInt8]
    let clientKeyDER: [UInt8]
    /// A client identity issued by the untrusted CA.
    let strangerCertificateDER: [UInt8]
    let strangerKeyDER: [UInt8]

    private static let cache = Mutex<APNsTestPKI?>(nil)

    /// Made once per test process.
    static func shared() throws -> APNsTestPKI {
        try cache.withLock { cached in
            if let cached { return cached }
            let made = try make()
            cached = made
            return made
        }
    }

    private static func make() throws -> APNsTestPKI {
        let directory = NSTemporaryDirectory() + "apns-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func openssl(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed"])
            }
        }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "other-ca"] {
            try openssl(["req", "-x509"] + ec + ["-keyout", "\(ca).key", "-out", "\(ca).pem", "-days", "2",
                         "-subj", "/CN=APNs Test \(ca)", "-addext", "basicConstraints=critical,CA:TRUE",
                         "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        }
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
            .write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        try "extendedKeyUsage=clientAuth\n".write(toFile: directory + "/client.ext", atomically: true, encoding: .utf8)
        let issued: [(name: String, ca: String, ext: String)] = [
            ("server", "ca", "server.ext"), ("client", "ca", "client.ext"),
            ("other-server", "other-ca", "server.ext"), ("stranger", "other-ca", "client.ext"),
        ]
        for item in issued {
            try openssl(["req"] + ec + ["-keyout", "\(item.name).key", "-out", "\(item.name).csr", "-subj", "/CN=\(item.name)"])
            try openssl(["x509", "-req", "-in", "\(item.name).csr", "-CA", "\(item.ca).pem", "-CAkey", "\(item.ca).key",
                         "-CAcreateserial", "-days", "2", "-extfile", item.ext, "-out", "\(item.name).pem"])
            try openssl(["x509", "-in", "\(item.name).pem", "-outform", "DER", "-out", "\(item.name).der"])
            try openssl(["pkcs8", "-topk8", "-nocrypt", "-in", "\(item.name).key", "-outform", "DER", "-out", "\(item.name).pk8.der"])
        }
        func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))) }
        return APNsTestPKI(
            directory: directory,
            clientCertificateDER: try bytes("client.der"), clientKeyDER: try bytes("client.pk8.der"),
            strangerCertificateDER: try bytes("stranger.der"), strangerKeyDER: try bytes("stranger.pk8.der")
        )
    }
}
