import Certificates
import Foundation
import PassBundle
import PassServerTesting
import Testing

/// `.pkpasses`: several signed passes in one zip, each still verifying on its own.
@Suite(".pkpasses files of several passes (verified with the unzip and openssl tools)", .offCooperativePool, .timeLimit(.minutes(3)))
struct PassesBundleTests {
    @Test("four passes: a zip of four .pkpass files at its root, each verifying with openssl")
    func fourPasses() throws {
        let certificates = try Fixture.certificates()
        let template = try Fixture.template()
        let passes = try (0..<4).map { index in
            (name: "ticket-\(index + 1).pkpass", bundle: try PassBundle.build(
                template: template, data: Fixture.ticket(attendee: "Guest \(index)"), identity: certificates.identity, signingTime: Fixture.signingTime
            ))
        }
        let archive = try PassesBundle.archive(passes)
        let outer = try UnpackedBundle(archive)
        #expect(outer.files == ["ticket-1.pkpass", "ticket-2.pkpass", "ticket-3.pkpass", "ticket-4.pkpass"])
        for (index, pass) in passes.enumerated() {
            let inner = try outer.bytes(pass.name)
            #expect(inner == pass.bundle, "\(pass.name) is stored as it was signed")
            let unpacked = try UnpackedBundle(inner)
            #expect(try unpacked.verifies(root: certificates.rootCertificate), "\(pass.name) verifies")
            #expect(try unpacked.passJSON()["serialNumber"] != nil)
            #expect(String(decoding: try unpacked.bytes("pass.json"), as: UTF8.self).contains("Guest \(index)"))
        }
        #expect(PassesBundle.mimeType == "application/vnd.apple.pkpasses")
    }

    @Test("at most ten passes, at least one, under unique plain .pkpass names")
    func refusals() throws {
        let bundle: [UInt8] = Array("not really a pass".utf8)
        #expect(throws: PassBundleError.self) { try PassesBundle.archive([]) }
        #expect(throws: PassBundleError.self) { try PassesBundle.archive((0..<11).map { (name: "t\($0).pkpass", bundle: bundle) }) }
        #expect(throws: Never.self) { try PassesBundle.archive((0..<10).map { (name: "t\($0).pkpass", bundle: bundle) }) }
        for name in ["a.zip", ".pkpass", "x/a.pkpass", "..\\a.pkpass", ".hidden.pkpass"] {
            #expect(throws: PassBundleError.self, "\(name)") { try PassesBundle.archive([(name: name, bundle: bundle)]) }
        }
        #expect(throws: PassBundleError.self) { try PassesBundle.archive([(name: "a.pkpass", bundle: bundle), (name: "a.pkpass", bundle: bundle)]) }
    }

    @Test("larger sets are offered as the fewest files of near-equal size: 12 passes as two of 6")
    func parts() {
        #expect(PassesBundle.parts(of: 0).isEmpty)
        #expect(PassesBundle.parts(of: 4) == [0..<4])
        #expect(PassesBundle.parts(of: 10) == [0..<10])
        #expect(PassesBundle.parts(of: 12) == [0..<6, 6..<12])
        #expect(PassesBundle.parts(of: 21) == [0..<7, 7..<14, 14..<21])
        for count in 1...100 {
            let ranges = PassesBundle.parts(of: count)
            #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == count)
            #expect(ranges.allSatisfy { $0.count <= PassesBundle.maxPasses && $0.count >= 1 })
            #expect(ranges.count == (count + 9) / 10)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        }
    }
}
