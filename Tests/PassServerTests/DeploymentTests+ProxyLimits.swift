import Foundation
import Testing

@testable import PassServer

/// The example proxy configurations enforce the server's own limits: for a path of each kind,
/// the body limit the proxy would apply (found the way the proxy chooses it) is the limit of the
/// server's route, and the proxy caps connections per client as the server would without it.
extension DeploymentTests {
    /// A path of each kind of route and the body limit the server gives it.
    static var bodyLimits: [(path: String, limit: Int)] {
        let general = Configuration().http.maxBodySize
        return [
            ("/admin/v1/events/ev_1/tickets:batch", TicketImport.maxBodySize),
            ("/admin/events/ev_1/import", DashboardController.importBodyLimit),
            ("/admin/sign-in", DashboardController.signInBodyLimit),
            ("/v1/devices/d1/registrations/pass.example/S1", DeviceController.maxBodySize),
            ("/v1/log", DeviceController.maxBodySize),
            ("/admin/events", general), ("/admin/events/ev_1/tickets", general), ("/admin/v1/events", general),
            ("/admin/scan/checkins:batch", general), ("/admin/v1/checkins:batch", general), ("/p/abc", general),
        ]
    }

    /// `1m`, `64k`, `16MiB`, `4KiB` in bytes.
    static func size(_ text: String) -> Int? {
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("k", 1 << 10), ("m", 1 << 20)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count)).map { $0 * factor }
        }
        return Int(text)
    }

    /// One nginx `location` of the https server: its modifier (`=`, `~`, `^~` or none), its path
    /// or pattern, and the `client_max_body_size` it sets.
    struct NginxLocation {
        var modifier: String
        var pattern: String
        var bodyLimit: Int?

        func matches(_ path: String) throws -> Bool {
            switch modifier {
            case "=": path == pattern
            case "~": try Regex(pattern).firstMatch(in: path) != nil
            default: path.hasPrefix(pattern)
            }
        }
    }

    /// The server-wide body limit and the locations of the last `server` block (the https one).
    static func nginxLocations(
        _ text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (bodyLimit: Int?, locations: [NginxLocation]) {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") && !$0.isEmpty }
        let start = try #require(lines.lastIndex { $0.hasPrefix("server {") }, "no server block", sourceLocation: sourceLocation)
        var bodyLimit: Int?
        var locations: [NginxLocation] = []
        var open: NginxLocation?
        func limit(in line: Substring) -> Int? {
            line.firstMatch(of: /client_max_body_size\s+([0-9]+[km]?);/).flatMap { size(String($0.1)) }
        }
        for line in lines[start...] {
            if let header = line.firstMatch(of: /^location\s+(?:(=|~|\^~)\s+)?(\S+)\s*\{(.*)$/) {
                var location = NginxLocation(modifier: String(header.1 ?? ""), pattern: String(header.2))
                location.bodyLimit = limit(in: header.3)
                if header.3.contains("}") { locations.append(location) } else { open = location }
            } else if var current = open {
                if line == "}" {
                    locations.append(current)
                    open = nil
                } else if let value = limit(in: Substring(line)) {
                    current.bodyLimit = value
                    open = current
                }
            } else if let value = limit(in: Substring(line)) {
                bodyLimit = value
            }
        }
        return (bodyLimit, locations)
    }

    /// The location nginx chooses for `path`: an exact match, else the longest prefix if it is
    /// `^~`, else the first regular expression that matches, else the longest prefix.
    static func nginxLocation(for path: String, in locations: [NginxLocation]) throws -> NginxLocation? {
        if let exact = try locations.first(where: { try $0.modifier == "=" && $0.matches(path) }) { return exact }
        let prefix = try locations.filter { try ($0.modifier == "" || $0.modifier == "^~") && $0.matches(path) }
            .max { $0.pattern.count < $1.pattern.count }
        if prefix?.modifier == "^~" { return prefix }
        return try locations.first { try $0.modifier == "~" && $0.matches(path) } ?? prefix
    }

    @Test func nginxTakesTheServersBodyAndConnectionLimits() throws {
        let text = try Self.read("deploy/nginx-pass-server.conf")
        let (serverLimit, locations) = try Self.nginxLocations(text)
        #expect(serverLimit == Configuration().http.maxBodySize)
        for (path, limit) in Self.bodyLimits {
            let location = try Self.nginxLocation(for: path, in: locations)
            let applied = location?.bodyLimit ?? serverLimit
            #expect(applied == limit, "\(path): nginx takes \(String(describing: applied)) bytes (location \(location?.pattern ?? "none")), the server \(limit)")
        }
        let connections = text.firstMatch(of: /\n\s*limit_conn pass_server_clients ([0-9]+);/).flatMap { Int($0.1) }
        #expect(connections == Configuration().http.maxConnectionsPerClient)
    }

    @Test func caddyTakesTheServersBodyAndConnectionLimits() throws {
        let text = try Self.read("deploy/Caddyfile")
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
        // Named matchers: `@name path /a/*`, `@name path_regexp re`, `@name not path_regexp re`.
        var matchers: [String: (String) throws -> Bool] = [:]
        for line in lines {
            guard let match = line.firstMatch(of: /^@(\w+)\s+(not\s+)?(path|path_regexp)\s+(\S+)$/) else { continue }
            let negated = match.2 != nil
            let argument = String(match.4)
            let test: (String) throws -> Bool = match.3 == "path"
                ? { path in argument.hasSuffix("*") ? path.hasPrefix(argument.dropLast()) : path == argument }
                : { path in try Regex(argument).firstMatch(in: path) != nil }
            matchers[String(match.1)] = { path in try test(path) != negated }
        }
        // `request_body @name {` followed by `max_size N`.
        var bodyLimits: [(matcher: String, limit: Int?)] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: /^request_body\s+@(\w+)\s*\{$/), index + 1 < lines.count else { continue }
            let size = lines[index + 1].firstMatch(of: /^max_size\s+(\S+)$/).flatMap { Self.size(String($0.1)) }
            bodyLimits.append((String(match.1), size))
        }
        #expect(!bodyLimits.isEmpty, "the Caddyfile limits request bodies")
        for (path, limit) in Self.bodyLimits {
            let applying = try bodyLimits.filter { try matchers[$0.matcher]?(path) == true }
            #expect(applying.count == 1 && applying.first?.limit == limit, "\(path): Caddy applies \(applying), the server \(limit)")
        }
        // Headers and bodies within the server's request timeout; connections per client in the
        // firewall rule the file gives, with the server's number.
        let timeout = "\(Configuration().http.requestTimeout)s"
        #expect(lines.contains("read_header \(timeout)") && lines.contains("read_body \(timeout)"), "timeouts of \(timeout)")
        #expect(text.contains("--connlimit-above \(Configuration().http.maxConnectionsPerClient) "))
    }
}
