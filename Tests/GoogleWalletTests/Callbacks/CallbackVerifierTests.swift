import Foundation
@testable import GoogleWallet
import PassServerTesting
import Synchronization
import Testing

@Suite("CallbackVerifier: ECv2SigningOnly callbacks signed as Google signs them", .offCooperativePool, .timeLimit(.minutes(1)))
struct CallbackVerifierTests {
    static let issuer = "3388000000022"
    let signer: GoogleCallbackSigner

    init() throws {
        signer = try GoogleCallbackSigner(recipient: Self.issuer)
    }

    func verifier(document: [UInt8]? = nil) throws -> CallbackVerifier {
        let bytes = try document ?? signer.keysDocument()
        let counter = Counter()
        return CallbackVerifier(recipientID: Self.issuer, rootKeys: RootKeys { counter.add(); return bytes })
    }

    func refusal(
        _ body: [UInt8], with verifier: CallbackVerifier, sourceLocation: SourceLocation = #_sourceLocation
    ) -> CallbackRefusal.Reason? {
        do {
            _ = try verifier.verify(body, now: Date())
            Issue.record("accepted", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("a save and a del verify and say what Google signed")
    func accepted() throws {
        let verifier = try verifier()
        let save = try verifier.verify(signer.callback(classID: "\(Self.issuer).e.ev", objectID: "\(Self.issuer).t.T-1", eventType: "save", nonce: "n-1"), now: Date())
        #expect(save.classID == "\(Self.issuer).e.ev")
        #expect(save.objectID == "\(Self.issuer).t.T-1")
        #expect(save.eventType == .save)
        #expect(save.nonce == "n-1")
        #expect(save.expiresAt > Date())
        let delete = try verifier.verify(signer.callback(classID: "c", objectID: "o", eventType: "del"), now: Date())
        #expect(delete.eventType == .delete)
    }

    @Test("signatures of other keys, other recipients and expired parts are refused by reason")
    func refusals() throws {
        let verifier = try verifier()
        func body(_ flaw: GoogleCallbackSigner.Flaw) throws -> [UInt8] {
            try signer.callback(classID: "c", objectID: "o", eventType: "save", flaw: flaw)
        }
        #expect(refusal(try body(.messageSignedByStranger), with: verifier) == .badSignature)
        #expect(refusal(try body(.intermediateSignedByStranger), with: verifier) == .badSignature)
        #expect(refusal(try body(.otherRecipient), with: verifier) == .badSignature)
        #expect(refusal(try body(.expiredMessage), with: verifier) == .expired)
        #expect(refusal(try body(.expiredIntermediate), with: verifier) == .keyExpired)
    }

    @Test("a tampered message, a foreign protocol and broken bodies are refused")
    func malformed() throws {
        let verifier = try verifier()
        let good = try signer.callback(classID: "c", objectID: "o", eventType: "save")
        var envelope = try #require(try JSONSerialization.jsonObject(with: Data(good)) as? [String: Any])
        let signed = try #require(envelope["signedMessage"] as? String)
        envelope["signedMessage"] = signed.replacingOccurrences(of: "\"save\"", with: "\"del\"")
        #expect(refusal([UInt8](try JSONSerialization.data(withJSONObject: envelope)), with: verifier) == .badSignature)
        envelope["signedMessage"] = signed
        envelope["protocolVersion"] = "ECv2"
        #expect(refusal([UInt8](try JSONSerialization.data(withJSONObject: envelope)), with: verifier) == .unsupportedProtocol)
        #expect(refusal(Array("[]".utf8), with: verifier) == .malformed)
        #expect(refusal(Array("{\"protocolVersion\":\"ECv2SigningOnly\"}".utf8), with: verifier) == .malformed)
        #expect(refusal(try signer.callback(classID: "c", objectID: "o", eventType: "added"), with: verifier) == .malformed)
    }

    @Test("root keys that expired or belong to another protocol verify nothing")
    func rootKeys() throws {
        var expired = signer
        expired.rootExpiration = Date().addingTimeInterval(-60)
        let body = try signer.callback(classID: "c", objectID: "o", eventType: "save")
        #expect(refusal(body, with: try verifier(document: expired.keysDocument())) == .unknownKey)
        #expect(refusal(body, with: try verifier(document: signer.keysDocument(protocolVersion: "ECv1"))) == .unknownKey)
        let unavailable = CallbackVerifier(recipientID: Self.issuer, rootKeys: RootKeys { throw CancellationError() })
        #expect(refusal(body, with: unavailable) == .keysUnavailable)
    }

    @Test("keys are fetched once, and again on an unknown key only after the interval")
    func refresh() throws {
        let counter = Counter()
        let other = try GoogleCallbackSigner(recipient: Self.issuer)
        let document = Mutex(try signer.keysDocument())
        let keys = RootKeys(refreshInterval: .milliseconds(300)) { counter.add(); return document.withLock { $0 } }
        let verifier = CallbackVerifier(recipientID: Self.issuer, rootKeys: keys)
        for _ in 0..<3 { _ = try verifier.verify(signer.callback(classID: "c", objectID: "o", eventType: "save"), now: Date()) }
        #expect(counter.value == 1)
        // Google rotates: the first callback of the new key comes too soon after the fetch.
        document.withLock { $0 = (try? other.keysDocument()) ?? [] }
        #expect(refusal(try other.callback(classID: "c", objectID: "o", eventType: "save"), with: verifier) == .badSignature)
        #expect(counter.value == 1)
        Thread.sleep(forTimeInterval: 0.35)
        _ = try verifier.verify(other.callback(classID: "c", objectID: "o", eventType: "save"), now: Date())
        #expect(counter.value == 2)
    }
}

/// Counts key fetches across the fetch closure's calls.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
