import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Download link rotation", .offCooperativePool)
struct DownloadTokenTests {
    @Test("rotating moves the nonce up and replaces the stored hash", arguments: Backend.allCases)
    func rotateReplacesHash(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let created = try fixture.makePass(serial: "ROT")
        #expect(created.downloadNonce == 0)
        let first = try #require(try fixture.store.withSession(.write) { session in
            try session.passes.rotateDownloadToken(passTypeIdentifier: StoreFixture.passType, serialNumber: "ROT") { Array("link-\($0)".utf8) }
        })
        #expect(first.downloadNonce == 1)
        #expect(first.downloadTokenHash == Array("link-1".utf8))
        #expect(first.revision == created.revision, "the pass itself does not change")
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(downloadTokenHash: created.downloadTokenHash) } == nil, "the old link is gone")
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(downloadTokenHash: Array("link-1".utf8)) }?.id == created.id)

        let second = try #require(try fixture.store.withSession(.write) { session in
            try session.passes.rotateDownloadToken(passTypeIdentifier: StoreFixture.passType, serialNumber: "ROT") { Array("link-\($0)".utf8) }
        })
        #expect(second.downloadNonce == 2)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(downloadTokenHash: Array("link-1".utf8)) } == nil)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(downloadTokenHash: Array("link-2".utf8)) }?.id == created.id)
        let missing = try fixture.store.withSession(.write) { session in
            try session.passes.rotateDownloadToken(passTypeIdentifier: StoreFixture.passType, serialNumber: "nope") { _ in [1] }
        }
        #expect(missing == nil)
    }
}
