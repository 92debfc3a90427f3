import Foundation
import HTTPServer
import PassBundle
import Storage

extension AdminController {
    /// The largest design body: the details are short texts and links.
    static let designBodyLimit = 64 << 10
    /// The largest image upload (`PassImageCheck` refuses larger files with its own message).
    static let imageBodyLimit = 6 << 20

    /// `POST /admin/v1/images?kind=logo[&colors=full]`: the body is a PNG or JPEG at the largest
    /// size; 201 with the stored image's id, @1x size and bytes; 400 naming what is wrong with the
    /// upload.
    func uploadImage(_ request: Request) throws -> Response {
        let image = try organizer.uploadImage(request.body, kind: request.query["kind"], colors: request.query["colors"], requestID: request.requestID)
        return .json(PassImageBody(image), status: 201, encoder: .api)
    }

    /// `GET /admin/v1/images/{imageId}`: the stored image's id, kind and @1x size.
    func showImage(_ request: Request) throws -> Response {
        .json(PassImageBody(try organizer.image(id: request.parameters["imageId"])), encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/design`: the event's design (`{}` fields left out: the template's).
    func showDesign(_ request: Request) throws -> Response {
        .json(try organizer.design(of: try existingEvent(request)), encoder: .api)
    }

    /// `PUT /admin/v1/events/{eventId}/design`: replaces the design; 200 with the event and the
    /// re-push job the change started (none when nothing changed).
    func updateDesign(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let design = try Self.readDesign(request.body)
        let update = try organizer.updateDesign(event, design, requestID: request.requestID)
        return .json(EventUpdateBody(update), encoder: .api)
    }

    /// A design from a JSON body: a type mismatch or a field the design does not have is named
    /// with its path (`details.venueLocation.latitude`).
    static func readDesign(_ body: [UInt8]) throws -> PassDesign {
        let tree: JSONValue
        do {
            tree = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            throw OrganizerError.invalid("body", "must be a JSON object")
        }
        guard case .object = tree else { throw OrganizerError.invalid("body", "must be a JSON object") }
        let design: PassDesign
        do {
            design = try JSONDecoder().decode(PassDesign.self, from: Data(body))
        } catch let error as DecodingError {
            throw OrganizerError.invalid([Self.issue(error)])
        }
        // Decoding skips fields it does not know: whatever is in the body but not in the design
        // read back from it was not understood.
        let understood = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(design))
        let unknown = Self.unknownFields(tree, understood, path: "")
        guard unknown.isEmpty else { throw OrganizerError.invalid(unknown.map { OrganizerError.Issue($0, "is not a field of a design") }) }
        return design
    }

    private static func issue(_ error: DecodingError) -> OrganizerError.Issue {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { path, key in
                if let index = key.intValue { return path + "[\(index)]" }
                return path.isEmpty ? key.stringValue : path + "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(let type, let context):
            return .init(path(context.codingPath), "must be \(type == String.self ? "a string" : type == Bool.self ? "true or false" : type == Double.self ? "a number" : "of another type")")
        case .valueNotFound(_, let context):
            return .init(path(context.codingPath), "must not be null")
        case .keyNotFound(let key, let context):
            return .init(path(context.codingPath + [key]), "is required")
        case .dataCorrupted(let context):
            return .init(path(context.codingPath).isEmpty ? "body" : path(context.codingPath), context.debugDescription)
        @unknown default:
            return .init("body", "cannot be read as a design")
        }
    }

    /// The paths of values in `given` that `understood` lacks (nulls aside: they mean "none").
    private static func unknownFields(_ given: JSONValue, _ understood: JSONValue, path: String) -> [String] {
        switch (given, understood) {
        case (.object(let fields), .object(let known)):
            return fields.keys.sorted().flatMap { key -> [String] in
                let child = path.isEmpty ? key : path + "." + key
                guard let value = fields[key], value != .null else { return [] }
                guard let match = known[key] else { return [child] }
                return unknownFields(value, match, path: child)
            }
        case (.object(let fields), _):
            return fields.isEmpty ? [] : [path]
        case (.array(let items), .array(let known)) where items.count == known.count:
            return items.indices.flatMap { unknownFields(items[$0], known[$0], path: path + "[\($0)]") }
        default:
            return []
        }
    }
}

/// A stored image as the admin API shows it.
struct PassImageBody: Encodable {
    var id: String
    var kind: String
    /// The @1x size in points (the @2x and @3x files are twice and three times as large).
    var width: Int
    var height: Int
    /// The bytes of its three PNGs: what the image adds to every pass that carries it.
    var bytes: Int

    init(_ image: PassImageRecord) {
        id = image.id
        kind = image.kind
        width = image.width
        height = image.height
        bytes = image.byteCount
    }
}
