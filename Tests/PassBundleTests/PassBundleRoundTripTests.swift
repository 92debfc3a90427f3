import Certificates
import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("Signed .pkpass round trip (verified with the openssl and unzip tools)", .offCooperativePool, .timeLimit(.minutes(3)))
struct PassBundleRoundTripTests {
    @Test("every file is at the root, listed in the manifest with its SHA-1, and the signature verifies")
    func roundTrip() throws {
        let certificates = try Fixture.certificates()
        let bundle = try PassBundle.build(template: Fixture.template(), data: Fixture.ticket(), identity: certificates.identity, signingTime: Fixture.signingTime)
        let unpacked = try UnpackedBundle(bundle)
        let files = unpacked.files
        #expect(files.contains("pass.json") && files.contains("icon.png") && files.contains("manifest.json") && files.contains("signature"))
        #expect(files.contains("en.lproj/pass.strings") && files.contains("ja.lproj/pass.strings"))
        #expect(files.allSatisfy { !$0.contains("/") || $0.hasSuffix(".lproj/pass.strings") }, "unexpected nesting: \(files)")
        #expect(try unpacked.manifestProblems() == [])
        let verification = try unpacked.verifySignature(root: certificates.rootCertificate)
        #expect(verification.status == 0, "openssl smime -verify: \(verification.error)")
        // Keys of manifest.json are sorted for determinism.
        let manifestText = String(decoding: try unpacked.bytes("manifest.json"), as: UTF8.self)
        let keys = try unpacked.manifest().keys.sorted()
        let positions = keys.compactMap { manifestText.range(of: "\"\($0)\"")?.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test("changing one byte of any file makes verification fail")
    func tamperingIsDetected() throws {
        let certificates = try Fixture.certificates()
        let bundle = try PassBundle.build(template: Fixture.template(), data: Fixture.ticket(), identity: certificates.identity)
        let pristine = try UnpackedBundle(bundle)
        #expect(try pristine.verifies(root: certificates.rootCertificate))
        for file in pristine.files {
            let copy = try UnpackedBundle(bundle)
            var bytes = try copy.bytes(file)
            let index = bytes.count / 2
            bytes[index] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: copy.directory + "/" + file))
            #expect(try !copy.verifies(root: certificates.rootCertificate), "tampered \(file) still verifies")
        }
    }

    @Test("the signature carries the signing time and the WWDR intermediate, no root, and is signed by the pass certificate")
    func signatureContents() throws {
        let certificates = try Fixture.certificates()
        let bundle = try PassBundle.build(template: Fixture.template(), data: Fixture.ticket(), identity: certificates.identity, signingTime: Fixture.signingTime)
        let unpacked = try UnpackedBundle(bundle)
        let printed = try run("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", unpacked.directory + "/signature"])
        #expect(printed.status == 0, "\(printed.error)")
        #expect(printed.output.contains("signingTime"))
        #expect(printed.output.contains("Mar  4 05:06:07 2026"), "signing time not found")
        #expect(printed.output.contains("sha256"))
        let certs = try run("openssl", ["pkcs7", "-inform", "DER", "-print_certs", "-noout", "-in", unpacked.directory + "/signature"])
        let subjects = certs.output.split(separator: "\n").filter { $0.hasPrefix("subject=") }
        #expect(subjects.count == 2, "\(certs.output)")
        #expect(subjects.contains { $0.contains("PassServer Test WWDR Intermediate") })
        #expect(subjects.contains { $0.contains(TestCertificates.passTypeIdentifier) })
        #expect(!subjects.contains { $0.contains("Root CA") })
        let signerPath = unpacked.directory + "/../signer.pem"
        #expect(try unpacked.verifySignature(root: certificates.rootCertificate, signerOut: signerPath).status == 0)
        let signer = try String(contentsOfFile: signerPath, encoding: .utf8)
        #expect(signer == (try String(contentsOfFile: certificates.passCertificate, encoding: .utf8)))
    }

    @Test("bundles are byte-identical for the same input and signing time")
    func deterministic() throws {
        let certificates = try Fixture.certificates()
        let template = try Fixture.template()
        let signer = try PassSigner(identity: certificates.identity)
        let ticket = Fixture.ticket()
        let first = try PassBundle.build(template: template, data: ticket, signer: signer, signingTime: Fixture.signingTime)
        let second = try PassBundle.build(template: template, data: ticket, signer: signer, signingTime: Fixture.signingTime)
        #expect(first == second)
        let later = try PassBundle.build(template: template, data: ticket, signer: signer, signingTime: Fixture.signingTime + 1)
        #expect(first != later)
    }

    @Test("a legacy .p12 (openssl pkcs12 -export -legacy) and the PEM pair sign bundles that verify alike")
    func p12AndPEMAgree() throws {
        let certificates = try Fixture.certificates()
        let legacyP12 = certificates.directory + "/cli-legacy.p12"
        let export = try run("openssl", ["pkcs12", "-export", "-legacy", "-in", certificates.passCertificate, "-inkey", certificates.passKey,
                                         "-certfile", certificates.wwdrCertificate, "-passout", "pass:secret-export", "-out", legacyP12])
        #expect(export.status == 0, "\(export.error)")
        let fromP12 = try SigningIdentity.load(p12: legacyP12, password: "secret-export", wwdr: nil)
        let fromPEM = try SigningIdentity.load(pem: certificates.passCertificate, privateKey: certificates.passKey, password: nil, wwdr: certificates.wwdrCertificate)
        #expect(fromP12.certificateDER == fromPEM.certificateDER)
        #expect(fromP12.intermediateDER == fromPEM.intermediateDER)
        let template = try Fixture.template()
        let ticket = Fixture.ticket()
        let bundleFromP12 = try PassBundle.build(template: template, data: ticket, identity: fromP12, signingTime: Fixture.signingTime)
        let bundleFromPEM = try PassBundle.build(template: template, data: ticket, identity: fromPEM, signingTime: Fixture.signingTime)
        // RSA PKCS#1 v1.5 signatures are deterministic, so the same key gives the same bytes.
        #expect(bundleFromP12 == bundleFromPEM)
        #expect(try UnpackedBundle(bundleFromP12).verifies(root: certificates.rootCertificate))
    }

    @Test("an identity without WWDR intermediate cannot sign")
    func wwdrMissing() throws {
        let certificates = try Fixture.certificates()
        let identity = try SigningIdentity.load(pem: certificates.passCertificate, privateKey: certificates.passKey, password: nil, wwdr: nil)
        let error = #expect(throws: PassBundleError.self) {
            _ = try PassBundle.build(template: Fixture.template(), data: Fixture.ticket(), identity: identity)
        }
        #expect(error?.code == .certificate)
        #expect((error?.underlying as? CertificateError)?.code == .wwdrMissing)
        #expect(error?.message.contains("WWDR_CERTIFICATE") == true)
    }

    @Test("one signer used from many threads at once produces valid signatures")
    func concurrentSigning() throws {
        let certificates = try Fixture.certificates()
        let template = try Fixture.template()
        let signer = try PassSigner(identity: certificates.identity)
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            results.append(Result { try PassBundle.build(template: template, data: Fixture.ticket(attendee: "Guest \(index)"), signer: signer) })
        }
        let bundles = try results.values.map { try $0.get() }
        #expect(bundles.count == 16)
        for bundle in bundles.prefix(4) {
            #expect(try UnpackedBundle(bundle).verifies(root: certificates.rootCertificate))
        }
    }

    @Test("template files are deflated once and copied with their CRCs; per-pass files are stored; unzip checks every CRC")
    func archiveLayout() throws {
        let certificates = try Fixture.certificates()
        let template = try Fixture.template()
        let signer = try PassSigner(identity: certificates.identity)
        let directory = try Fixture.directory("layout")
        for (index, attendee) in ["Ada Lovelace", "Grace Hopper"].enumerated() {
            let archive = directory + "/\(index).pkpass"
            try Data(try PassBundle.build(template: template, data: Fixture.ticket(attendee: attendee), signer: signer)).write(to: URL(fileURLWithPath: archive))
            let test = try run("unzip", ["-tq", archive])
            #expect(test.status == 0, "unzip -t: \(test.output) \(test.error)")
            // `unzip -Z -v` prints each entry's name, then "compression method: ...".
            let details = try run("unzip", ["-Z", "-v", archive])
            var methods: [String: String] = [:]
            var current: String?
            for line in details.output.split(separator: "\n") {
                if line.hasPrefix("Central directory entry #") { current = nil }
                if current == nil, let name = line.split(separator: " ").last, !line.contains(":"), !line.hasPrefix("-") {
                    current = String(name)
                }
                if let name = current, line.contains("compression method:") {
                    methods[name] = line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) }
                }
            }
            for path in ["pass.json", "manifest.json", "signature"] {
                #expect(methods[path] == "none (stored)", "\(path): \(methods[path] ?? "missing")")
            }
            for path in template.filePaths {
                #expect(methods[path]?.hasPrefix("deflated") == true, "\(path): \(methods[path] ?? "missing")")
            }
            #expect(methods.count == template.filePaths.count + 3)
        }
    }

    @Test("a bundle is two runs: the template's files, the same bytes for every pass, and a tail of the pass's own few kilobytes; joined they are one archive unzip and Python read")
    func twoRuns() throws {
        let certificates = try Fixture.certificates()
        // A template with a large incompressible image: what a design's photo strip is like.
        var generator = SystemRandomNumberGenerator()
        let photo = (0..<2_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base = try Fixture.template()
        var files = Dictionary(uniqueKeysWithValues: base.filePaths.compactMap { path in base.file(at: path).map { (path, $0) } })
        files["pass.json"] = Array(try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + "/pass.json")))
        files["fields.json"] = try Fixture.fieldsJSON()
        files["strip@3x.png"] = photo
        files["é.lproj/pass.strings"] = Array("\"x\" = \"y\";".utf8)
        let template = try Template(name: "photo", files: files)
        let signer = try PassSigner(identity: certificates.identity)
        let passJSON = { (name: String) throws in try PassBundle.renderPassJSON(template: template, data: Fixture.ticket(attendee: name), signer: signer) }
        let ada = try passJSON("Ada Lovelace")
        let first = try PassBundle.signed(template: template, passJSON: ada, signer: signer, signingTime: Fixture.signingTime)
        let second = try PassBundle.signed(template: template, passJSON: try passJSON("Grace Hopper"), signer: signer, signingTime: Fixture.signingTime)
        #expect(first.runs.count == 2)
        #expect(first.runs[0] === second.runs[0], "the template's run is shared, not rebuilt")
        #expect(first.count > photo.count && first.ownCount < 16_384, "\(first.count) bytes, \(first.ownCount) of them the pass's")
        #expect(first.bytes == (try PassBundle.assemble(template: template, passJSON: ada, signer: signer, signingTime: Fixture.signingTime)))

        let directory = try Fixture.directory("runs")
        let archive = directory + "/photo.pkpass"
        try Data(first.bytes).write(to: URL(fileURLWithPath: archive))
        try Data(photo).write(to: URL(fileURLWithPath: directory + "/photo.bin"))
        let test = try run("unzip", ["-tq", archive])
        #expect(test.status == 0, "unzip -t: \(test.output) \(test.error)")
        // Python's zipfile checks each entry's CRC, sizes and local header against the directory.
        let python = try run("python3", ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                names = z.namelist()
                assert names[-3:] == ["pass.json", "manifest.json", "signature"], names
                assert z.read("strip@3x.png") == open(sys.argv[2], "rb").read()
                print(len(names))
            """, archive, directory + "/photo.bin"])
        #expect(python.status == 0, "\(python.output) \(python.error)")
        #expect(python.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(template.filePaths.count + 3))
        let unpacked = try UnpackedBundle(first.bytes)
        #expect(try unpacked.manifestProblems() == [])
        #expect(try unpacked.verifies(root: certificates.rootCertificate))
        #expect(try unpacked.bytes("é.lproj/pass.strings") == files["é.lproj/pass.strings"])
    }
}
