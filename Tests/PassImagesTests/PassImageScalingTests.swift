import Foundation
import PassBundle
import ByteEncoding
import Certificates
import Dispatch
import PassImages
import PassServerTesting
import Synchronization
import Testing

@Suite("Scaling a checked pass image to @1x, @2x and @3x PNGs", .offCooperativePool, .timeLimit(.minutes(2)))
struct PassImageScalingTests {
    /// Checks and scales `bytes` as `kind`, then expects file names, PNG signatures and the pixel
    /// sizes found by decoding each output, smallest scale first.
    @discardableResult
    private func expectSet(
        _ bytes: [UInt8], as kind: PassImageKind, sizes expected: [(Int, Int)], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> PassImageSet {
        let set = try PassImageCheck.check(bytes, as: kind).scaled()
        let stem = kind.rawValue
        #expect(set.kind == kind, sourceLocation: sourceLocation)
        #expect(set.files.map(\.name) == ["\(stem).png", "\(stem)@2x.png", "\(stem)@3x.png"], sourceLocation: sourceLocation)
        #expect(set.files.map(\.scale) == [1, 2, 3], sourceLocation: sourceLocation)
        try #require(set.files.count == expected.count, sourceLocation: sourceLocation)
        for (file, (width, height)) in zip(set.files, expected) {
            #expect(file.png.starts(with: PNGFile.signature), "\(file.name) is not a PNG", sourceLocation: sourceLocation)
            let decoded = try TestImage.decode(file.png, sourceLocation: sourceLocation)
            #expect(decoded.loader == "pngload_buffer", sourceLocation: sourceLocation)
            #expect((decoded.width, decoded.height) == (width, height), "\(file.name) is \(decoded.width)×\(decoded.height)",
                sourceLocation: sourceLocation)
            #expect(file.size == ImageSize(width: width, height: height), sourceLocation: sourceLocation)
        }
        return set
    }

    @Test("an icon becomes 29, 58 and 87 pixels square")
    func icon() throws {
        try expectSet(try TestImage.make(512, 512), as: .icon, sizes: [(29, 29), (58, 58), (87, 87)])
    }

    @Test("a wide logo fits its 160×50 box at each scale, keeping its 4:1 proportions")
    func logo() throws {
        try expectSet(try TestImage.make(1200, 300), as: .logo, sizes: [(160, 40), (320, 80), (480, 120)])
    }

    @Test("a tall logo is bounded by the box's height")
    func tallLogo() throws {
        try expectSet(try TestImage.make(300, 600), as: .logo, sizes: [(25, 50), (50, 100), (75, 150)])
    }

    @Test("a strip fills 375×98 exactly, even 1.3 % off its proportions")
    func strip() throws {
        try expectSet(try TestImage.make(1125, 294), as: .strip, sizes: [(375, 98), (750, 196), (1125, 294)])
        try expectSet(try TestImage.make(1125, 298), as: .strip, sizes: [(375, 98), (750, 196), (1125, 294)])
    }

    @Test("a background and a thumbnail fit their boxes with their own proportions")
    func backgroundAndThumbnail() throws {
        try expectSet(try TestImage.make(600, 900), as: .background, sizes: [(147, 220), (293, 440), (440, 660)])
        try expectSet(try TestImage.make(400, 300), as: .thumbnail, sizes: [(90, 68), (180, 135), (270, 203)])
    }

    @Test("a JPEG upload comes out as PNG")
    func jpegBecomesPNG() throws {
        let jpeg = try TestImage.make(1200, 313, as: .jpeg)
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(try PassImageCheck.check(jpeg, as: .strip).format == .jpeg)
        try expectSet(jpeg, as: .strip, sizes: [(375, 98), (750, 196), (1125, 294)])
    }

    @Test("a JPEG turned by EXIF comes out upright, with the tag gone")
    func jpegIsTurnedUpright() throws {
        try expectSet(try TestImage.make(294, 1125, as: .jpeg, orientation: 6), as: .strip, sizes: [(375, 98), (750, 196), (1125, 294)])
    }

    @Test("EXIF and PNG text metadata do not survive: only image chunks remain")
    func metadataIsStripped() throws {
        let marker = "PassImages metadata marker"
        let jpeg = try TestImage.make(600, 600, as: .jpeg, exifArtist: marker)
        let png = try TestImage.make(600, 600, as: .png, pngComment: marker)
        // The inputs do carry the metadata, so its absence below is the stripping's doing.
        #expect(contains(jpeg, "Exif") && contains(jpeg, marker))
        #expect(!Set(PNGFile.chunkTypes(png)).isDisjoint(with: ["tEXt", "zTXt", "iTXt"]))
        // Pixels, palette, transparency and the pixel density; nothing about the picture's origin.
        let imageChunks: Set = ["IHDR", "PLTE", "tRNS", "pHYs", "IDAT", "IEND"]
        for upload in [jpeg, png] {
            let set = try PassImageCheck.check(upload, as: .icon).scaled()
            for file in set.files {
                let chunks = PNGFile.chunkTypes(file.png)
                #expect(Set(chunks).isSubset(of: imageChunks), "\(file.name) has \(chunks)")
                #expect(!contains(file.png, marker) && !contains(file.png, "Exif"), "\(file.name) keeps metadata")
            }
        }
    }

    @Test("in full colour, grey, RGBA and 16-bit uploads come out as 8-bit RGB or RGBA PNGs", arguments: [
        (1, false, UInt8(2)), (4, false, 6), (3, true, 2), (1, true, 2), (4, true, 6),
    ])
    func outputIsEightBitSRGB(bands: Int, sixteenBit: Bool, colourType: UInt8) throws {
        let upload = try TestImage.make(300, 300, bands: bands, sixteenBit: sixteenBit)
        // IHDR's bit depth and colour type bytes, for the upload and then each output.
        #expect(upload[24] == (sixteenBit ? 16 : 8))
        for file in try PassImageCheck.check(upload, as: .thumbnail).scaled(.full).files {
            #expect(file.png[24] == 8, "\(file.name) has \(file.png[24]) bits per sample")
            #expect(file.png[25] == colourType, "\(file.name) has colour type \(file.png[25])")
        }
    }

    /// IHDR's colour type: 2 RGB, 3 palette, 6 RGBA.
    private static func colourType(_ png: [UInt8]) -> UInt8 { png[25] }

    @Test("by default an image of at most 256 colours becomes palette PNGs with exactly the full-colour pixels")
    func paletteIsExactForFewColours() throws {
        // Grey noise in three bands: however it is scaled, at most 256 colours (every one a grey),
        // and noise, so a palette's byte a pixel beats full colour's three.
        let upload = try TestImage.encode(grey: TestImage.noise(600 * 600), 600, 600, as: .png, colour: true)
        let palette = try PassImageCheck.check(upload, as: .icon).scaled()
        let full = try PassImageCheck.check(upload, as: .icon).scaled(.full)
        for (small, large) in zip(palette.files, full.files) {
            #expect(Self.colourType(large.png) == 2, "\(large.name) in full colour is RGB")
            #expect(Self.colourType(small.png) == 3, "\(small.name) is a palette PNG by default")
            #expect(PNGFile.chunkTypes(small.png).contains("PLTE"))
            let (smallBands, smallPixels) = try TestImage.pixels(small.png)
            let (largeBands, largePixels) = try TestImage.pixels(large.png)
            #expect(smallBands == 3 && largeBands == 3)
            #expect(smallPixels == largePixels, "\(small.name): the palette holds every colour, so no pixel changes")
        }
        #expect(palette.contentAddress != full.contentAddress, "two encodings are two stored images")
    }

    @Test("a photograph-like strip in a palette is under a third of its full-colour bytes and within a few levels of it")
    func paletteShrinksPhotographs() throws {
        let upload = try TestImage.photographLike(1125, 294)
        let palette = try PassImageCheck.check(upload, as: .strip).scaled()
        let full = try PassImageCheck.check(upload, as: .strip).scaled(.full)
        let paletteBytes = palette.files.reduce(0) { $0 + $1.png.count }
        let fullBytes = full.files.reduce(0) { $0 + $1.png.count }
        #expect(palette.files.allSatisfy { Self.colourType($0.png) == 3 }, "every scale is a palette PNG")
        #expect(full.files.allSatisfy { Self.colourType($0.png) == 2 })
        #expect(paletteBytes * 3 < fullBytes, "\(paletteBytes) bytes in a palette against \(fullBytes) in full colour")
        for (small, large) in zip(palette.files, full.files) {
            let (_, smallPixels) = try TestImage.pixels(small.png)
            let (_, largePixels) = try TestImage.pixels(large.png)
            try #require(smallPixels.count == largePixels.count)
            var squares = 0.0
            for (a, b) in zip(smallPixels, largePixels) {
                let difference = Double(Int(a) - Int(b))
                squares += difference * difference
            }
            let meanSquare = squares / Double(largePixels.count)
            let psnr = 10 * log10(255 * 255 / max(meanSquare, 1e-9))
            #expect(psnr > 30, "\(small.name): \(psnr) dB against the full-colour file")
        }
    }

    @Test("a file smaller in full colour than in a palette (a smooth gradient) stays in full colour")
    func smallerEncodingWins() throws {
        var grey = [UInt8](repeating: 0, count: 600 * 600)
        for index in grey.indices { grey[index] = UInt8(index % 600 * 255 / 599) }
        let upload = try TestImage.encode(grey: grey, 600, 600, as: .png, colour: true)
        let byDefault = try PassImageCheck.check(upload, as: .icon).scaled()
        let full = try PassImageCheck.check(upload, as: .icon).scaled(.full)
        #expect(byDefault == full, "each file is the smaller of the two encodings: here full colour")
        #expect(byDefault.files.allSatisfy { Self.colourType($0.png) == 2 })
    }

    @Test("a palette keeps an upload's transparency")
    func paletteKeepsAlpha() throws {
        // Grey noise, transparent on the left and opaque on the right, at the icon's @3x size, so
        // the @3x file is the noise itself (where a palette is far smaller than full colour).
        let side = 87
        let grey = TestImage.noise(side * side)
        var samples = [UInt8](repeating: 0, count: side * side * 4)
        for pixel in grey.indices {
            samples[pixel * 4] = grey[pixel]
            samples[pixel * 4 + 1] = grey[pixel]
            samples[pixel * 4 + 2] = grey[pixel]
            samples[pixel * 4 + 3] = UInt8(pixel % side * 255 / (side - 1))
        }
        let upload = try TestImage.encode(rgb: samples, side, side, bands: 4)
        let set = try PassImageCheck.check(upload, as: .icon).scaled()
        let largest = try #require(set.file(at: 3))
        #expect(Self.colourType(largest.png) == 3, "the @3x file is a palette PNG")
        #expect(PNGFile.chunkTypes(largest.png).contains("tRNS"), "carrying its alpha in the palette")
        let (bands, pixels) = try TestImage.pixels(largest.png)
        try #require(bands == 4 && pixels.count == samples.count)
        let alphaError = stride(from: 3, to: pixels.count, by: 4).map { abs(Int(pixels[$0]) - Int(samples[$0])) }.max() ?? 255
        #expect(alphaError <= 16, "the alpha is kept within \(alphaError) levels")
        for file in set.files {
            #expect(try TestImage.pixels(file.png).bands == 4, "\(file.name) decodes with an alpha band")
        }
    }

    @Test("the content address is the SHA-256 of the stored set, and the same upload always gives it")
    func contentAddress() throws {
        let upload = try TestImage.make(512, 512)
        let first = try PassImageCheck.check(upload, as: .icon).scaled()
        let second = try PassImageCheck.check(upload, as: .icon).scaled()
        #expect(first == second)
        var framed: [UInt8] = []
        for file in first.files {
            framed += Array(file.name.utf8) + [0]
            framed += withUnsafeBytes(of: UInt64(file.png.count).bigEndian, Array.init)
            framed += file.png
        }
        #expect(first.contentAddress == Hex.encode(try Digest.sha256().hash(framed)))
        #expect(first.contentAddress.count == 64)
        // The same upload as another kind is another set, with another address.
        let asThumbnail = try PassImageCheck.check(upload, as: .thumbnail).scaled()
        #expect(asThumbnail.contentAddress != first.contentAddress)
        #expect(first.bundleFiles.keys.sorted() == ["icon.png", "icon@2x.png", "icon@3x.png"])
        #expect(first.file(at: 2)?.size == ImageSize(width: 58, height: 58))
    }

    @Test("scaling from several threads at once gives the same bytes")
    func concurrentScaling() throws {
        let upload = try TestImage.make(1200, 300, as: .jpeg)
        let expected = try PassImageCheck.check(upload, as: .logo).scaled().contentAddress
        let addresses = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let address = (try? PassImageCheck.check(upload, as: .logo).scaled().contentAddress) ?? "failed"
            addresses.withLock { $0.append(address) }
        }
        #expect(addresses.withLock { $0 } == Array(repeating: expected, count: 6))
    }

    private func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
