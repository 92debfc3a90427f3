import ByteEncoding
import Certificates
import Foundation

extension Template {
    /// The SHA-256 (lowercase hex) of everything that goes into a pass: pass.json as parsed (so a
    /// change of spacing alone changes nothing), the declarations of `fields.json`, and every
    /// bundled file's path and SHA-1. Mail texts are left out: they change no pass.
    static func contentHash(passJSON: JSONValue, fieldsJSON: [UInt8]?, files: [File]) throws(PassBundleError) -> String {
        var listing = "pass.json\t" + (try SHA1.hex(passJSON.serialized)) + "\n"
        if let fieldsJSON {
            let canonical = (try? JSONDecoder().decode(JSONValue.self, from: Data(fieldsJSON)))?.serialized ?? fieldsJSON
            listing += TemplateField.fileName + "\t" + (try SHA1.hex(canonical)) + "\n"
        }
        for file in files { listing += file.path + "\t" + file.sha1 + "\n" }
        do {
            return Hex.encode(try Digest.sha256().hash(Array(listing.utf8)))
        } catch {
            throw PassBundleError(signing: error)
        }
    }
}
