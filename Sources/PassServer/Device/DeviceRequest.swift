import PassIdentifiers
import Foundation
import HTTPServer

/// Validation of the parts of a device request, done once at the edge.
enum DeviceRequest {
    static let unauthorized = HTTPError(
        status: 401, code: "unauthorized", message: "Missing or invalid ApplePass authorization for this pass."
    )

    /// The `ApplePass` token, checked before anything else so that a request without valid
    /// credentials learns nothing about its path (401 even when a segment is malformed too).
    /// `AndroidPass` (WalletPasses) is accepted too when `acceptingAndroid` (the Android push
    /// relay is configured); otherwise it is refused like any other word.
    static func token(_ request: Request, acceptingAndroid: Bool = false) throws(HTTPError) -> (token: AuthenticationToken, scheme: DeviceAuthorizationScheme) {
        guard let (scheme, token) = AuthenticationToken.parse(authorizationHeader: request.headers["Authorization"]),
            scheme == .applePass || acceptingAndroid
        else { throw unauthorized }
        return (token, scheme)
    }

    static func device(_ request: Request) throws(HTTPError) -> DeviceLibraryIdentifier {
        guard let value = request.parameters["deviceLibraryIdentifier"].flatMap(DeviceLibraryIdentifier.init) else {
            throw HTTPError.badRequest("deviceLibraryIdentifier must be 1 to 128 letters, digits, '-' or '_'.", code: "invalid_device_library_identifier")
        }
        return value
    }

    static func passType(_ request: Request) throws(HTTPError) -> PassTypeIdentifier {
        guard let value = request.parameters["passTypeIdentifier"].flatMap(PassTypeIdentifier.init) else {
            throw HTTPError.badRequest("passTypeIdentifier must look like pass.com.example.name.", code: "invalid_pass_type_identifier")
        }
        return value
    }

    static func serial(_ request: Request) throws(HTTPError) -> SerialNumber {
        guard let value = request.parameters["serialNumber"].flatMap(SerialNumber.init) else {
            throw HTTPError.badRequest("serialNumber must be 1 to 128 letters, digits or '-_.:'.", code: "invalid_serial_number")
        }
        return value
    }

    /// Decodes a JSON body (`Request.decode`); anything else is a 400 naming the problem.
    static func json<T: Decodable>(_ type: T.Type, from request: Request) throws(HTTPError) -> T {
        try request.decode(type)
    }
}
