// Measures the scanner page's server-side camera path: one 640×480 JPEG frame (what the page sends
// a few times a second from a phone without BarcodeDetector) decoded to greyscale by libvips and
// read by libzbar, as `POST /admin/scan/decode` does, without the HTTP around it. Also the typed
// check code's lookup cost: deriving one check code per ticket of an event.
//
// Threading: runs on the calling thread only (bench/frames.sh pins it to one core with taskset),
// so frames/s is one core's rate; the caller blocks until it finishes.

import Foundation
import PassIdentifiers
import PassImages
import PassServer
import PassServerTesting
import SystemSupport

/// Frame decoding measurement behind `pass-server-bench frames`.
public enum FrameDecodeBenchmark {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    public struct Result: Sendable {
        /// Frames read, and of them the ones whose code was found.
        public var frames: Int
        public var read: Int
        /// Per frame, whole path (decode and scan), in milliseconds.
        public var p50: Double
        public var p99: Double
        public var max: Double
        /// libvips' share (JPEG to greyscale) and libzbar's, medians in milliseconds.
        public var decodeP50: Double
        public var scanP50: Double
        /// Frames per second on this thread: frames over the time the whole path took.
        public var framesPerSecond: Double
        /// The same on this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): what one core does when
        /// no neighbour takes it, on a shared machine the truer measure of capacity.
        public var cpuP50: Double
        public var cpuP99: Double
        public var framesPerCPUSecond: Double
        /// Average JPEG size in bytes.
        public var averageBytes: Int
    }

    /// The frames: a ticket's code turned, blurred and noisy in several ways, and scenes without a
    /// code (most frames a phone sends show none yet), as 640×480 JPEGs at the quality the page
    /// uses.
    public static func frames(message: String) throws -> [(jpeg: [UInt8], hasCode: Bool)] {
        let variants: [(angle: Double, blur: Double, noise: Int, module: Double)] = [
            (0, 0.6, 3, 6), (12, 0.9, 5, 5), (-27, 1.2, 6, 5), (45, 0.8, 4, 6), (90, 1.0, 8, 4), (170, 1.4, 5, 5),
        ]
        var frames: [(jpeg: [UInt8], hasCode: Bool)] = []
        for variant in variants {
            let frame = try QRFrame(message: message, moduleSize: variant.module, angle: variant.angle, blur: variant.blur, noise: variant.noise)
            frames.append((try jpeg(frame), true))
        }
        for noise in [4, 10] {
            var scene = try QRFrame(message: message, noise: noise)
            // The same lighting and noise without the ticket: no code to find.
            scene.pixels = (0..<scene.pixels.count).map { index in
                let (x, y) = (index % scene.width, index / scene.width)
                return UInt8(max(0, min(255, 150 - 60 * x / scene.width + 20 * y / scene.height + Int(scene.pixels[index] % 16) - 8)))
            }
            frames.append((try jpeg(scene), false))
        }
        return frames
    }

    /// Reads `count` frames (cycling through `frames(message:)`) after a short warm-up.
    public static func run(count: Int) throws -> Result {
        let message = "x5Lr0Qm2V1c8pTzA9bYk~Qk3v9XyLm0aB1cD2eF3"
        let frames = try frames(message: message)
        for frame in frames { _ = try FrameReader.codes(in: frame.jpeg) }
        var totals: [Double] = []
        var decodes: [Double] = []
        var scans: [Double] = []
        var cpu: [Double] = []
        var read = 0
        var expected = 0
        let clock = ContinuousClock()
        let started = clock.now
        let cpuStarted = ThreadClock.cpuSeconds() * 1_000
        for index in 0..<count {
            let frame = frames[index % frames.count]
            let cpuBegin = ThreadClock.cpuSeconds() * 1_000
            let begin = clock.now
            let grey = try FrameReader.greyscale(frame.jpeg)
            let decoded = clock.now
            let codes = try FrameReader.codes(inGreyscale: grey.pixels, width: grey.size.width, height: grey.size.height)
            let end = clock.now
            cpu.append(ThreadClock.cpuSeconds() * 1_000 - cpuBegin)
            totals.append(milliseconds(end - begin))
            decodes.append(milliseconds(decoded - begin))
            scans.append(milliseconds(end - decoded))
            if frame.hasCode {
                expected += 1
                if codes == [message] { read += 1 }
            }
        }
        let elapsed = milliseconds(clock.now - started)
        let cpuElapsed = ThreadClock.cpuSeconds() * 1_000 - cpuStarted
        return Result(
            frames: expected, read: read, p50: percentile(totals, 0.50), p99: percentile(totals, 0.99), max: totals.max() ?? 0,
            decodeP50: percentile(decodes, 0.50), scanP50: percentile(scans, 0.50), framesPerSecond: Double(count) / (elapsed / 1_000),
            cpuP50: percentile(cpu, 0.50), cpuP99: percentile(cpu, 0.99), framesPerCPUSecond: Double(count) / (cpuElapsed / 1_000),
            averageBytes: frames.map(\.jpeg.count).reduce(0, +) / frames.count
        )
    }

    /// Check codes derived per second, and the time one typed code's lookup in an event of
    /// `tickets` tickets spends deriving them (the database read aside).
    public static func checkCodes(tickets: Int) throws -> (perSecond: Double, lookupMilliseconds: Double) {
        let vault = TokenVault(secret: Array(repeating: 7, count: 32))
        let name = "pass.bench.passserver"
        guard let passType = PassTypeIdentifier(name) else { throw Failure(description: "\(name) is no pass type identifier") }
        let serials = (0..<tickets).compactMap { SerialNumber(String(format: "bench-%015d", $0)) }
        let clock = ContinuousClock()
        let started = clock.now
        var matches = 0
        for serial in serials where try vault.checkCode(passType: passType, serial: serial) == "ZZZZ-ZZZZ" { matches += 1 }
        let elapsed = milliseconds(clock.now - started)
        return (Double(serials.count) / (elapsed / 1_000), elapsed)
    }

    private static func jpeg(_ frame: QRFrame) throws -> [UInt8] {
        // A browser's canvas writes RGB.
        try BenchImages.encode(rgb: frame.pixels.flatMap { [$0, $0, $0] }, width: frame.width, height: frame.height, as: .jpeg)
    }

    private static func milliseconds(_ duration: Duration) -> Double { duration.timeInterval * 1_000 }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
