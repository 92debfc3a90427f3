import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Helpers of the order suites: issuing an order through the admin API, and reading a served
/// `.pkpasses` file as a reviewer would (unzipped twice with `/usr/bin/unzip`, each pass's
/// signature verified with `openssl smime -verify` against the test PKI).
enum OrderSupport {
    /// `POST /admin/v1/events/{event}/orders` with `count` tickets (`Guest 1`, … seats `R1`, …);
    /// returns the answer's body.
    static func createOrder(
        _ app: TestApp, event: String, count: Int, buyer: String = "buyer@example.com", buyerName: String? = "Bea Buyer",
        externalID: String? = nil, notify: Bool = false, namePrefix: String = "Guest", attendeeEmails: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        let tickets = (1...count).map { index in
            let email = attendeeEmails ? #","attendeeEmail":"guest\#(index)@example.com""# : ""
            return #"{"attendeeName":"\#(namePrefix) \#(index)","seat":"R\#(index)"\#(email)}"#
        }.joined(separator: ",")
        var fields = [#""buyerEmail":"\#(buyer)""#, #""tickets":[\#(tickets)]"#]
        if let buyerName { fields.append(#""buyerName":"\#(buyerName)""#) }
        if let externalID { fields.append(#""externalId":"\#(externalID)""#) }
        if notify { fields.append(#""notify":true"#) }
        let response = try app.admin("POST", "/admin/v1/events/\(event)/orders", json: "{" + fields.joined(separator: ",") + "}")
        try #require(response.status == 201, "order not issued: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try #require(response.jsonObject, sourceLocation: sourceLocation)
    }

    /// The path and query of an absolute URL (what a client asks the server for).
    static func target(_ url: String?, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let components = try #require(url.flatMap(URLComponents.init(string:)), "not a URL: \(url ?? "nil")", sourceLocation: sourceLocation)
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The `.pkpasses` files an order body offers: each one's URL and count of passes.
    static func bundles(_ order: [String: Any]) -> [(url: String, tickets: Int)] {
        ((order["bundles"] as? [[String: Any]]) ?? []).compactMap { bundle in
            guard let url = bundle["url"] as? String, let count = bundle["tickets"] as? Int else { return nil }
            return (url, count)
        }
    }

    /// The serial numbers of an order body's tickets, in order.
    static func serials(_ order: [String: Any]) -> [String] {
        ((order["tickets"] as? [[String: Any]]) ?? []).compactMap { $0["serialNumber"] as? String }
    }

    /// The `.pkpass` files inside a `.pkpasses` body, by name, each unzipped; every one's
    /// signature is verified with openssl against `root` (an issue at `sourceLocation` if not).
    static func passes(
        inBundle body: [UInt8], root: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: [String: [UInt8]]] {
        var passes: [String: [String: [UInt8]]] = [:]
        for (name, bytes) in try PassArchive.files(body) {
            #expect(name.hasSuffix(".pkpass") && !name.contains("/"), "\(name) is a .pkpass at the file's root", sourceLocation: sourceLocation)
            let files = try PassArchive.files(bytes)
            try EventDesignTests.verifySignature(files, root: root, sourceLocation: sourceLocation)
            passes[name] = files
        }
        return passes
    }

    /// The serial number in each pass's pass.json, sorted.
    static func serials(inPasses passes: [String: [String: [UInt8]]]) throws -> [String] {
        try passes.values.map { files in
            let json = try #require(files["pass.json"])
            return try #require((try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])?["serialNumber"] as? String)
        }.sorted()
    }
}
