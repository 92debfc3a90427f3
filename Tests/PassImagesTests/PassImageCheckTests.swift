import PassBundle
import CVips
import PassImages
import PassServerTesting
import Testing

@Suite("Checking an uploaded pass image", .offCooperativePool, .timeLimit(.minutes(2)))
struct PassImageCheckTests {
    /// Expects `bytes` to be refused as `kind` with exactly `expected`.
    private func expectRefusal(
        _ bytes: [UInt8], as kind: PassImageKind, _ expected: PassImageError, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let image = try PassImageCheck.check(bytes, as: kind)
            Issue.record("accepted as \(kind) (\(image.size)); expected \(expected.code)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == expected, sourceLocation: sourceLocation)
        }
    }

    // MARK: Format

    @Test("GIF and WebP files made by libvips are refused by name", arguments: [
        (TestImage.Encoding.gif, "GIF"), (.webp, "WebP"),
    ])
    func otherFormatsAreRefused(encoding: TestImage.Encoding, name: String) throws {
        let bytes = try TestImage.make(300, 300, as: encoding)
        expectRefusal(bytes, as: .icon, .unsupportedFormat(name))
        #expect(PassImageError.unsupportedFormat(name).description == "The file is a \(name) image; upload a PNG or JPEG image instead.")
    }

    @Test("SVG text is refused as SVG, with or without an XML declaration")
    func svgIsRefused() {
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><rect width="300" height="300"/></svg>"#
        expectRefusal(Array(svg.utf8), as: .icon, .unsupportedFormat("SVG"))
        expectRefusal(Array(("\u{FEFF}\n  <?xml version=\"1.0\"?>\n" + svg).utf8), as: .logo, .unsupportedFormat("SVG"))
    }

    @Test("only the PNG and JPEG loaders of libvips stay open: SVG, GIF and WebP cannot be opened at all")
    func otherLoadersAreBlocked() throws {
        try Vips.start()
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>"#.utf8)
        for bytes in [svg, try TestImage.make(10, 10, as: .gif), try TestImage.make(10, 10, as: .webp)] {
            let opened = bytes.withUnsafeBytes { TestVipsImage(shim_vips_image_new_from_buffer($0.baseAddress, $0.count)) }
            #expect(opened == nil)
            #expect(TestImage.errorText().contains("blocked"))
        }
        for bytes in [try TestImage.make(10, 10), try TestImage.make(10, 10, as: .jpeg)] {
            #expect(bytes.withUnsafeBytes { TestVipsImage(shim_vips_image_new_from_buffer($0.baseAddress, $0.count)) } != nil)
        }
    }

    @Test("text, noise, an archive and an empty file are not images")
    func nonImagesAreRefused() {
        var generator = SplitMix(seed: 29)
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        expectRefusal(noise, as: .icon, .notAnImage)
        expectRefusal(Array("This is not a picture of anything.\n".utf8), as: .strip, .notAnImage)
        expectRefusal([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 100), as: .logo, .notAnImage)
        expectRefusal([], as: .icon, .empty)
        #expect(PassImageError.notAnImage.description == "The file is not an image; upload a PNG or JPEG image.")
    }

    @Test("a file that starts like a PNG but has no valid header is undecodable")
    func brokenHeaderIsUndecodable() throws {
        var bytes = try TestImage.make(100, 100)
        bytes.replaceSubrange(12..<16, with: Array("JUNK".utf8))
        do {
            _ = try PassImageCheck.check(bytes, as: .icon)
            Issue.record("accepted")
        } catch {
            guard case .undecodable(.png, _) = error else { Issue.record("got \(error.code)"); return }
            #expect(error.description == "The file starts like a PNG image but is damaged or cut short; it cannot be read.")
        }
    }

    // MARK: Size

    @Test("a file over 5 MiB is refused for its size before anything else")
    func oversizedFileIsRefused() throws {
        let bytes = try TestImage.make(300, 300)
        let padded = bytes + [UInt8](repeating: 0, count: PassImageCheck.maximumFileBytes + 1 - bytes.count)
        #expect(PassImageCheck.maximumFileBytes == 5 * 1024 * 1024)
        expectRefusal(padded, as: .icon, .fileTooLarge(byteCount: 5_242_881))
        #expect(PassImageError.fileTooLarge(byteCount: 5_242_881).description
            == "The file is 5242881 bytes; an image may be at most 5242880 bytes (5 MiB).")
    }

    @Test("huge dimensions in a small file's header are refused without decoding", arguments: [
        (UInt32(20000), UInt32(20000)), (9000, 100), (100, 9000), (7000, 7000),
    ])
    func hugeHeaderIsRefused(width: UInt32, height: UInt32) throws {
        // The pixel data is that of a 64×64 image: a decode of the claimed size would fail, and
        // a decode of 20000×20000 would need over a gigabyte. Refusing with `dimensionsTooLarge` shows that
        // only the header was read.
        let forged = PNGFile.withHeader(try TestImage.make(64, 64), width: width, height: height)
        #expect(forged.count < 20_000)
        let size = ImageSize(width: Int(width), height: Int(height))
        expectRefusal(forged, as: .background, .dimensionsTooLarge(size))
    }

    @Test("the largest dimensions allowed pass the check from the header alone")
    func largestHeaderPasses() throws {
        // 8192×4000 is 32.8 million pixels: within both limits. The forged file's pixel data is
        // far too short, which only scaling finds.
        let forged = PNGFile.withHeader(try TestImage.make(64, 64), width: 8192, height: 4000)
        let checked = try PassImageCheck.check(forged, as: .background)
        #expect(checked.size == ImageSize(width: 8192, height: 4000))
        do {
            _ = try checked.scaled()
            Issue.record("scaled an image with missing pixel data")
        } catch {
            guard case .undecodable(.png, _) = error else { Issue.record("got \(error.code): \(error.debugDescription)"); return }
        }
    }

    @Test("a truncated JPEG passes the header check and is reported undecodable by scaling")
    func truncatedJPEGIsUndecodable() throws {
        let jpeg = try TestImage.make(300, 300, as: .jpeg)
        let checked = try PassImageCheck.check(Array(jpeg.prefix(jpeg.count / 2)), as: .icon)
        do {
            _ = try checked.scaled()
            Issue.record("scaled a truncated JPEG")
        } catch {
            guard case .undecodable(.jpeg, _) = error else { Issue.record("got \(error.code): \(error.debugDescription)"); return }
        }
    }

    // MARK: Proportions and minimum size

    @Test("wrong proportions are refused with the kind's rule and the image's size", arguments: [
        (PassImageKind.strip, 1000, 1000, "The strip must be 375:98 (width:height, within 2 %); this image is 1000×1000."),
        (.icon, 100, 90, "The icon must be 29:29 (width:height, within 2 %); this image is 100×90."),
        (.thumbnail, 1000, 300, "The thumbnail must be between 2:3 and 3:2 (width:height); this image is 1000×300."),
        (.thumbnail, 300, 1000, "The thumbnail must be between 2:3 and 3:2 (width:height); this image is 300×1000."),
    ])
    func wrongAspectIsRefused(kind: PassImageKind, width: Int, height: Int, message: String) throws {
        let size = ImageSize(width: width, height: height)
        expectRefusal(try TestImage.make(width, height), as: kind, .wrongAspectRatio(kind, size))
        #expect(PassImageError.wrongAspectRatio(kind, size).description == message)
    }

    @Test("proportions within 2 % of an exact box are accepted", arguments: [
        (PassImageKind.strip, 1125, 298), (.strip, 1145, 294), (.icon, 100, 102), (.icon, 300, 295),
    ])
    func nearAspectIsAccepted(kind: PassImageKind, width: Int, height: Int) throws {
        let checked = try PassImageCheck.check(try TestImage.make(width, height), as: kind)
        #expect(checked.size == ImageSize(width: width, height: height))
    }

    @Test("images short of three times the box are too small", arguments: [
        (PassImageKind.icon, 86, 86, "The icon must be at least 87×87 pixels (three times its 29×29-point size); this image is 86×86."),
        (.strip, 1124, 294, "The strip must be at least 1125×294 pixels (three times its 375×98-point size); this image is 1124×294."),
        (.logo, 400, 100,
         "The logo must be at least 480 pixels wide or 150 pixels high (three times its 160×50-point box); this image is 400×100."),
        (.background, 500, 600,
         "The background must be at least 540 pixels wide or 660 pixels high (three times its 180×220-point box); this image is 500×600."),
        (.thumbnail, 260, 260,
         "The thumbnail must be at least 270 pixels wide or 270 pixels high (three times its 90×90-point box); this image is 260×260."),
    ])
    func tooSmallIsRefused(kind: PassImageKind, width: Int, height: Int, message: String) throws {
        let size = ImageSize(width: width, height: height)
        expectRefusal(try TestImage.make(width, height), as: kind, .tooSmall(kind, size))
        #expect(PassImageError.tooSmall(kind, size).description == message)
    }

    @Test("the smallest uploads each kind takes", arguments: [
        (PassImageKind.icon, 87, 87), (.strip, 1125, 294), (.logo, 480, 20), (.logo, 100, 150),
        (.background, 540, 100), (.thumbnail, 270, 180),
    ])
    func smallestAccepted(kind: PassImageKind, width: Int, height: Int) throws {
        let checked = try PassImageCheck.check(try TestImage.make(width, height), as: kind)
        #expect(checked.kind == kind && checked.format == .png)
    }

    @Test("a JPEG is measured upright: a portrait file turned a quarter by EXIF is a strip")
    func exifOrientationCounts() throws {
        let turned = try TestImage.make(294, 1125, as: .jpeg, orientation: 6)
        let checked = try PassImageCheck.check(turned, as: .strip)
        #expect(checked.size == ImageSize(width: 1125, height: 294))
        #expect(checked.format == .jpeg)
        expectRefusal(try TestImage.make(294, 1125, as: .jpeg), as: .strip, .wrongAspectRatio(.strip, ImageSize(width: 294, height: 1125)))
    }
}

/// A small seeded generator, so the "noise" is the same on every run.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
