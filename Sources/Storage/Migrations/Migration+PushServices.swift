// Version 21: which push service each device is pushed through.
//
// Apple Wallet is pushed through APNs; Android wallet apps that speak Apple's web-service protocol
// (WalletPasses, `Authorization: AndroidPass …`) are pushed through their own relay over HTTPS.
// `devices.push_service` is the service of the device's push token, set by each registration (a
// device that registers again with the other scheme switches). `push_outbox.push_service` is the
// service a row is sent through: each service's dispatcher claims only its own rows, so a relay
// that refuses our key pauses the relay alone, never APNs. The claim index of version 12 leads with
// the service, so each claim still reads its n rows in order and stops, and a pending row is still
// written to three indexes (version 14). Existing rows are APNs's.

extension Migration {
    static let pushServices = Migration(version: 21, name: "push services: APNs or the Android wallet relay", sql:
        """
        ALTER TABLE devices ADD COLUMN push_service TEXT NOT NULL DEFAULT 'apns' CHECK (push_service IN ('apns', 'relay'));
        ALTER TABLE push_outbox ADD COLUMN push_service TEXT NOT NULL DEFAULT 'apns' CHECK (push_service IN ('apns', 'relay'));
        DROP INDEX push_outbox_ready;
        CREATE INDEX push_outbox_ready ON push_outbox (push_service, next_attempt_at, id) WHERE state = 'pending';
        """
    )
}
