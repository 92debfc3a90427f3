import Foundation
import HTTPServer
import Storage

/// `GET /images/{imageId}?scale=2`: an uploaded pass image (`pass_images`) as PNG, for the pages
/// that show a design (the attendee's ticket page, the dashboard's preview).
///
/// Public and cached for good: an image's id is the SHA-256 of the three files made from it
/// (`PassImageSet.contentAddress`), so an id names one picture forever and cannot be guessed from
/// anything but the picture itself, which every pass of the event carries anyway. Unknown and
/// malformed ids are the same JSON 404.
struct PassImageController: Sendable {
    let store: any Store

    func register(in router: inout Router) {
        router.get("/images/:imageId", maxBodySize: 0, query: ["scale"]) { request in
            try Self.response(try image(request.parameters["imageId"]), scale: request.query["scale"], shared: true)
        }
    }

    /// The stored image with `id`; 404 when the id is malformed or names none.
    func image(_ id: String?) throws -> PassImageRecord {
        let notFound = HTTPError.notFound("No such image.")
        guard let id, Self.isImageID(id) else { throw notFound }
        guard let image = try store.withSession(.read, { try $0.images.passImage(id: id) }) else { throw notFound }
        return image
    }

    /// 64 lowercase hex digits.
    static func isImageID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The PNG of `image` at `scale` (`1`, `2` or `3`; 1 when not given), 400 for another scale.
    /// `shared`: cacheable by anyone for a year (`immutable`); otherwise by the browser alone.
    static func response(_ image: PassImageRecord, scale: String?, shared: Bool) throws -> Response {
        let png: [UInt8]
        switch scale ?? "1" {
        case "1": png = image.image1x
        case "2": png = image.image2x
        case "3": png = image.image3x
        default: throw HTTPError(status: 400, code: "invalid_scale", message: "scale must be 1, 2 or 3.")
        }
        return Response(
            status: 200,
            headers: [
                "Content-Type": "image/png",
                "Cache-Control": shared ? "public, max-age=31536000, immutable" : "private, max-age=31536000, immutable",
                "X-Content-Type-Options": "nosniff",
                "Content-Security-Policy": "default-src 'none'",
            ],
            body: png
        )
    }
}
