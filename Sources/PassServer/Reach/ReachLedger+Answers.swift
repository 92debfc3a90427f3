import Foundation
import PassIdentifiers
import Storage

/// What the device API's answers mean for reach, decided here so the device API only reports
/// what it answered. Each mark is left only when it says something new, so a phone asking again
/// costs nothing.
extension ReachLedger {
    /// The changed-serials list answered `changed` to `device` (asking after `listedAfter`): the
    /// device is told `changed.lastRevision` for the passes listed. Marked only when a listed
    /// registration has not been told it yet.
    func listed(_ changed: ChangedSerials, to device: DeviceLibraryIdentifier, passType: PassTypeIdentifier, listedAfter: Int64?, at time: Date) {
        guard let last = changed.lastRevision, !changed.serialNumbers.isEmpty, changed.needsTelling else { return }
        told(.init(deviceLibraryIdentifier: device, passTypeIdentifier: passType, listedAfter: listedAfter, tag: last, at: time))
    }

    /// `pass` was served (a download, or a 304 confirming the phone holds it): its current
    /// revision reached a device. Marked once per revision (the row read to authenticate tells
    /// whether it is known already).
    func served(_ pass: StoredPass, at time: Date) {
        served(PassHead(pass), at: time)
    }

    /// `served` from the head of the pass a fetch read.
    func served(_ pass: PassHead, at time: Date) {
        guard (pass.servedRevision ?? -1) < pass.revision else { return }
        served(.init(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, revision: pass.revision, at: time))
    }
}
