import PassBundle
import PassImages
import Testing

@Suite("The limits table for an event ticket's images", .offCooperativePool)
struct PassImageKindTests {
    @Test("each kind's box in points and whether it must fill it", arguments: [
        (PassImageKind.icon, 29, 29, true), (.logo, 160, 50, false), (.strip, 375, 98, true),
        (.background, 180, 220, false), (.thumbnail, 90, 90, false),
    ])
    func boxes(kind: PassImageKind, width: Int, height: Int, exact: Bool) {
        #expect(kind.shape.box == ImageSize(width: width, height: height))
        if case .exact = kind.shape { #expect(exact) } else { #expect(!exact) }
        #expect(kind.shape.minimumUpload == ImageSize(width: 3 * width, height: 3 * height))
    }

    @Test("every kind is in the table, and only the thumbnail bounds its proportions")
    func allKinds() {
        #expect(PassImageKind.allCases.map(\.fileStem) == ["icon", "logo", "strip", "thumbnail", "background", "footer", "artwork", "primaryLogo", "secondaryLogo"])
        #expect(PassImageKind.thumbnail.shape == .fitting(ImageSize(width: 90, height: 90), aspectRatios: (2.0 / 3.0)...(3.0 / 2.0)))
        #expect(PassImageKind.logo.shape == .fitting(ImageSize(width: 160, height: 50), aspectRatios: nil))
        #expect(PassImageFile.name(of: .background, at: 3) == "background@3x.png")
    }
}
