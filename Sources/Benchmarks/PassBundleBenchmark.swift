// Measures end-to-end bundle generation (render, validate, hash, sign, zip) with a throwaway
// development identity.
//
// Threading: runs `threads` dedicated Foundation threads (never the cooperative pool) that share
// one PassSigner, which is what a server does; the caller blocks until they finish.

import Certificates
import Foundation
import PassBundle
import Synchronization

/// Bundle throughput measurement behind `pass-server-bench bundles`.
public enum PassBundleBenchmark {
    /// Builds bundles for `seconds` on `threads` threads and returns bundles per second.
    ///
    /// `templateDirectory` defaults to the event-ticket template of this repository.
    public static func run(threads: Int, seconds: Double, templateDirectory: String = "Passes/event-ticket") throws -> Double {
        let template = try Template.load(directory: templateDirectory)
        let root = try CertificateAuthority.makeRoot()
        let wwdr = try root.issueIntermediate(subject: ["CN": "Benchmark WWDR", "OU": "G4"])
        let pass = try wwdr.issue(
            subject: ["UID": DevelopmentCertificates.defaultPassTypeIdentifier, "CN": "Pass Type ID: bench", "OU": DevelopmentCertificates.defaultTeamIdentifier],
            usage: .passSigning
        )
        let identity = try SigningIdentity(certificateDER: pass.certificateDER, privateKeyDER: pass.privateKeyDER, intermediateDER: wwdr.certificate.certificateDER)
        let signer = try PassSigner(identity: identity)
        let data = TicketData(
            serialNumber: "BENCH-0000", authenticationToken: "benchmark-token-0123456789",
            webServiceURL: "https://passes.example.com/", organizationName: "PassServer Bench",
            description: "Benchmark ticket", eventName: "Benchmark Night", venue: "Hall 1",
            startsAt: Date(timeIntervalSince1970: 1_800_000_000), timeZone: "Europe/Berlin", attendeeName: "Ada Lovelace", seat: "A-12"
        )
        // Warm up (first use caches provider state) and fail early on a broken setup.
        _ = try PassBundle.build(template: template, data: data, signer: signer)

        let count = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let deadline = Date(timeIntervalSinceNow: seconds)
        let group = DispatchGroup()
        let start = Date()
        for index in 0..<max(1, threads) {
            group.enter()
            let thread = Thread {
                var ticket = data
                var serial = 0
                while Date() < deadline {
                    serial += 1
                    ticket.serialNumber = "BENCH-\(index)-\(serial)"
                    do {
                        _ = try PassBundle.build(template: template, data: ticket, signer: signer)
                        count.add(1, ordering: .relaxed)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let elapsed = Date().timeIntervalSince(start)
        if failures.load(ordering: .relaxed) > 0 {
            throw PassBundleError(.signingFailed, "\(failures.load(ordering: .relaxed)) bundles failed during the benchmark")
        }
        return Double(count.load(ordering: .relaxed)) / elapsed
    }
}
