import ByteEncoding
import Certificates
import Foundation
import PassIdentifiers
import Storage

/// `Reach` as the admin API shows it (docs/admin.md, "Reach").
struct ReachBody: Encodable, Equatable {
    var devices: Int64
    var devicesUpToDate: Int64
    var pushesPending: Int64
    var pushesFailed: Int64
    var pushesDelivered: Int64
    /// An event's tickets saved in Google Wallet now (absent while Google Wallet is off, and on jobs).
    var googleWalletSaved: Int64?

    init(_ reach: Reach) {
        devices = reach.devices
        devicesUpToDate = reach.devicesUpToDate
        pushesPending = reach.pushesPending
        pushesFailed = reach.pushesFailed
        pushesDelivered = reach.pushesDelivered
    }
}

/// A ticket in Google Wallet, as Google's save and delete callbacks told us (shown while Google
/// Wallet is on): saved now or not, when first saved, and when Google last called.
struct GoogleWalletTicketBody: Encodable {
    var saved: Bool
    var firstSavedAt: String?
    var lastEventAt: String?

    init(_ ticket: GoogleWalletTicket?) {
        saved = ticket?.saved ?? false
        firstSavedAt = ticket?.firstSavedAt.map { ISODate.format($0) }
        lastEventAt = ticket.map { ISODate.format($0.lastEventAt) }
    }
}

/// One registration of a ticket: which phone (by a hash, never its device library identifier,
/// which is the phone's secret for the changed-serials list), what it was last told, and whether
/// it holds the ticket's current revision.
struct DeviceBody: Encodable {
    /// The first 16 hex digits of the SHA-256 of the device library identifier.
    var id: String
    var registeredAt: String
    /// The last `lastUpdated` tag the changed-serials list returned to the phone listing this
    /// ticket, and when; absent until the phone first asked.
    var toldTag: String?
    var toldAt: String?
    var upToDate: Bool

    init(_ device: RegisteredDevice) throws {
        id = try Self.id(of: device.deviceLibraryIdentifier)
        registeredAt = ISODate.format(device.registeredAt)
        toldTag = device.toldRevision.map { String($0) }
        toldAt = device.toldAt.map { ISODate.format($0) }
        upToDate = device.upToDate
    }

    static func id(of deviceLibraryIdentifier: DeviceLibraryIdentifier) throws -> String {
        String(Hex.encode(try Digest.sha256().hash(Array(deviceLibraryIdentifier.rawValue.utf8))).prefix(16))
    }
}
