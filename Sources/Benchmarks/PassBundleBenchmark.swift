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
    /// What the passes look like.
    public enum Look: String, Sendable, CaseIterable {
        /// The template as it is.
        case template
        /// An event design as the server builds it: colours, logo text, Wallet details (venue,
        /// location, performers, guide links, a featured action) and every image kind of the
        /// classic event ticket uploaded at its largest size and scaled to @1x/@2x/@3x.
        case allImages = "all-images"
    }

    /// The design `.allImages` uses, without its image ids (the images come in through the template).
    static let design = """
        {"backgroundColor": "#102030", "foregroundColor": "rgb(250, 250, 250)", "labelColor": "#ffcc00", "logoText": "Harbour Hall",
         "details": {"venueName": "Harbour Hall", "venueRegionName": "Lisbon", "venueRoom": "Main Stage",
          "venueLocation": {"latitude": 38.7071, "longitude": -9.1359}, "entranceDescription": "Gate B, river side",
          "kind": {"type": "livePerformance", "performerNames": ["The Quiet Ones", "Night Ferry"]},
          "guide": {"bagPolicyURL": "https://example.com/bags", "parkingInformationURL": "https://example.com/parking",
                    "directionsInformationURL": "https://example.com/directions"},
          "featuredActions": [{"type": "listenToMusic", "url": "https://example.com/listen"}]}}
        """

    /// Bundles per second: by the wall clock, and by each thread's own CPU time (summed over the
    /// threads, as `openssl speed -multi N` without `-elapsed` sums its processes' rates), which a
    /// neighbour's load on a shared machine disturbs far less.
    public struct Rate: Sendable {
        public var wallClock: Double
        public var perCPUSecond: Double
    }

    /// Builds bundles for `seconds` on `threads` threads.
    ///
    /// `templateDirectory` defaults to the event-ticket template of this repository.
    public static func run(threads: Int, seconds: Double, templateDirectory: String = "Passes/event-ticket", look: Look = .template) throws -> Rate {
        let plain = try Template.load(directory: templateDirectory)
        let template = look == .allImages ? try plain.designed(images: try BenchImages.designImages()) : plain
        let passDesign = look == .allImages ? try JSONDecoder().decode(PassDesign.self, from: Data(design.utf8)) : PassDesign()
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
        // What the server keeps and sends for a pass: the archive's two runs (BundleArchive.swift).
        let first = try PassBundle.buildSigned(template: template, data: data, design: passDesign, signer: signer)
        if look == .allImages, first.count < 100_000 {
            throw PassBundleError(.invalidTemplate, "the designed bundle is \(first.count) bytes: its images are missing")
        }

        let count = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let cpuRates = Mutex<[Double]>([])
        let deadline = Date(timeIntervalSinceNow: seconds)
        let group = DispatchGroup()
        let start = Date()
        for index in 0..<max(1, threads) {
            group.enter()
            let thread = Thread {
                var ticket = data
                var serial = 0
                let cpuStarted = ThreadClock.cpuSeconds()
                while Date() < deadline {
                    serial += 1
                    ticket.serialNumber = "BENCH-\(index)-\(serial)"
                    do {
                        _ = try PassBundle.buildSigned(template: template, data: ticket, design: passDesign, signer: signer)
                        count.add(1, ordering: .relaxed)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                let cpu = ThreadClock.cpuSeconds() - cpuStarted
                cpuRates.withLock { $0.append(cpu > 0 ? Double(serial) / cpu : 0) }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let elapsed = Date().timeIntervalSince(start)
        if failures.load(ordering: .relaxed) > 0 {
            throw PassBundleError(.signingFailed, "\(failures.load(ordering: .relaxed)) bundles failed during the benchmark")
        }
        return Rate(wallClock: Double(count.load(ordering: .relaxed)) / elapsed, perCPUSecond: cpuRates.withLock { $0.reduce(0, +) })
    }
}
