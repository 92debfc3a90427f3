import PassImages
import PassServerTesting
import Testing

/// Reading QR codes out of camera frames (`FrameReader`): libvips decodes, libzbar finds; frames
/// are made at test time (`QRFrame`), turned, blurred and noisy as a phone's camera sees a ticket.
@Suite("Reading QR codes from camera frames", .offCooperativePool, .timeLimit(.minutes(2)))
struct FrameReaderTests {
    static let code = "x5Lr0Qm2V1c8pTzA9bYk~Qk3v9XyLm0aB1cD2eF3"

    private func expectRefusal(_ bytes: [UInt8], _ expected: FrameError, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let codes = try FrameReader.codes(in: bytes)
            Issue.record("read \(codes); expected \(expected)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == expected, sourceLocation: sourceLocation)
        }
    }

    @Test("a ticket's code is read from a PNG and a JPEG frame, turned, blurred and noisy", arguments: [
        (0.0, 0.0, 0), (17.0, 1.2, 6), (-33.0, 0.8, 4), (90.0, 1.5, 8), (180.0, 1.0, 0),
    ])
    func readsTurnedBlurredFrames(angle: Double, blur: Double, noise: Int) throws {
        let frame = try QRFrame(message: Self.code, moduleSize: 5, angle: angle, blur: blur, noise: noise)
        #expect(try FrameReader.codes(in: frame.png) == [Self.code])
        let jpeg = try TestImage.encode(grey: frame.pixels, frame.width, frame.height, as: .jpeg, colour: true)
        #expect(try FrameReader.codes(in: jpeg) == [Self.code])
    }

    @Test("a frame without a code reads as no codes")
    func emptyScene() throws {
        var frame = try QRFrame(message: Self.code)
        frame.pixels = frame.pixels.map { _ in 128 }
        #expect(try FrameReader.codes(in: frame.png) == [])
        #expect(try FrameReader.codes(in: TestImage.make(320, 240, as: .jpeg)) == [])
    }

    @Test("bytes that are no PNG or JPEG are refused before any decoder sees them")
    func garbage() throws {
        expectRefusal([], .empty)
        expectRefusal(Array("not an image at all".utf8), .notAnImage(format: nil))
        expectRefusal((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }, .notAnImage(format: nil))
        expectRefusal(try TestImage.make(64, 64, as: .gif), .notAnImage(format: "GIF"))
        expectRefusal(try TestImage.make(64, 64, as: .webp), .notAnImage(format: "WebP"))
    }

    @Test("damaged and truncated frames are undecodable, not read as grey")
    func damaged() throws {
        let png = try QRFrame(message: Self.code).png
        #expect(throws: FrameError.self) { try FrameReader.codes(in: Array(png.prefix(png.count / 2))) }
        let jpeg = try TestImage.encode(grey: try QRFrame(message: Self.code).pixels, 640, 480, as: .jpeg)
        let truncated = Array(jpeg.prefix(jpeg.count / 3))
        do {
            _ = try FrameReader.codes(in: truncated)
            Issue.record("a truncated JPEG was read")
        } catch {
            guard case .undecodable(.jpeg, _) = error else { Issue.record("\(error)"); return }
        }
        // A PNG signature followed by noise.
        let noise = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<200).map { UInt8(truncatingIfNeeded: $0 * 37) }
        do {
            _ = try FrameReader.codes(in: noise)
            Issue.record("noise after a PNG signature was read")
        } catch {
            guard case .undecodable(.png, _) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("size limits: bytes, and pixels from the header before decoding")
    func limits() throws {
        expectRefusal([UInt8](repeating: 0xFF, count: FrameReader.maximumFileBytes + 1), .fileTooLarge(byteCount: FrameReader.maximumFileBytes + 1))
        // Headers claiming frames beyond the limits, with a few bytes of data behind them.
        let data = [UInt8](repeating: 0, count: 16)
        expectRefusal(QRFrame.png(width: 30_000, height: 30_000, imageData: data), .dimensionsTooLarge(ImageSize(width: 30_000, height: 30_000)))
        expectRefusal(QRFrame.png(width: 1921, height: 100, imageData: data), .dimensionsTooLarge(ImageSize(width: 1921, height: 100)))
        expectRefusal(QRFrame.png(width: 1920, height: 1081, imageData: data), .dimensionsTooLarge(ImageSize(width: 1920, height: 1081)))
        // The largest frame taken is read.
        let large = try QRFrame(message: Self.code, width: 1920, height: 1080, moduleSize: 8, angle: 5)
        #expect(try FrameReader.codes(in: TestImage.encode(grey: large.pixels, large.width, large.height, as: .jpeg)) == [Self.code])
    }
}
