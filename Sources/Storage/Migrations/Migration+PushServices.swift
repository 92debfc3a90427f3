// Version 21: which push service each device is pushed through.
//
// Apple Wallet is pushed through APNs; Android wallet apps that speak Apple's web-service protocol
// (WalletPasses, `Authorization: AndroidPass …`) are pushed through their own relay over HTTPS.
// `devices.push_service` is the service of the device's push token, set by each registration (a
// device that registers again with the other scheme switches). `push_outbox.push_service` is the
// service a row is sent through: each service's dispatcher claims only its own rows
// (`push_outbox_service_due`), so a relay that refuses our key pauses the relay alone, never APNs.
// Existing rows are APNs's.

extension Migration {
    static let pushServices = Migration(version: 21, name: "push services: APNs or the Android wallet relay", sql:
        """
        ALTER TABLE devices ADD COLUMN push_service TEXT NOT NULL DEFAULT 'apns' CHECK (push_service IN ('apns', 'relay'));
        ALTER TABLE push_outbox ADD COLUMN push_service TEXT NOT NULL DEFAULT 'apns' CHECK (push_service IN ('apns', 'relay'));
        CREATE INDEX push_outbox_service_due ON push_outbox (push_service, state, next_attempt_at);
        """
    )
}
