import ByteEncoding
import Certificates
import PassServerTesting
import Testing

@testable import Storage

/// Every applied migration's SQL, pinned by its SHA-256. A database records the migrations it ran
/// and never runs them again, so an edited migration leaves the databases that already ran it with
/// another schema than new ones: a change of schema is a new migration, and the SQL of a shipped one
/// stays the same to the byte, however it is written in Swift.
@Suite("Migration pins", .offCooperativePool)
struct MigrationPinTests {
    /// By version: the SHA-256 (hex) of its PostgreSQL SQL and of its SQLite SQL.
    static let pins: [Int: (postgres: String, sqlite: String)] = [
        1: (postgres: "de96434492cb918e97104d744e92df121284ba22b6b91ceaa6f4a85afcb9c22c", sqlite: "4668be77ef71e41bb73be67f641457c37d5ce351d451605b60a4c6c818740bda"),
        2: (postgres: "968be16e568d8b4ca31f2e5d477ce29eb54808f992b5c786b066610c98fc4bd0", sqlite: "7792f1a6fee58e2b52af82b5febb06a82d4254b916c9762d82233331ac019f16"),
        3: (postgres: "e0bbd155077839b871633472833fb9a0f06bafa298053889d97404bc67f1b0e3", sqlite: "b7d283359adb40fdfde7d7aaac3e4c38aa6cb12662170db49430aee89b23c124"),
        4: (postgres: "993060bdb770dd007f0689530f375fde1ea0fc0f89de1c258dae03c3d7beebe5", sqlite: "e90a9e77a2152905199c53c42cf26340f05e2f1d3f729d2a29668edb5631b5b5"),
        6: (postgres: "a07738d42c53e4577137b67676247fef083bfa4010051f6a949c930d8f77a7f8", sqlite: "8c3a1048f6f46fc190cc9fb70f4f33f7ea9a21b8545afc7d930ba766a58e0706"),
        7: (postgres: "19b6ea0afa618afb35123bf12b6e2c407189786b905ab3298e2d444b68170db0", sqlite: "3163496135e2837d66a74681df1ad634e613ca718a728fb2c43d4db94dba9a45"),
        8: (postgres: "37c39b8e7fc480814ac1289e75bcc7dcc72aacc242910122237b692d23e3df38", sqlite: "441e29c0cba3d4b6dd50b9a5941826c1bf4995e75ede12c2f7cb8599ad06f3c5"),
        9: (postgres: "b2192196ff51ef7515f3a114f18085a87a8996bdc68c050e05f7ae67f4cfbb20", sqlite: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        10: (postgres: "fc4045d10cf8220d3a16a943f72061d420d10696a7f859c4cd8c828ecb2bde83", sqlite: "01b3cadc681b693a616ad1a63029c63cd19fde60c7c677e554b0552f3f50928d"),
        11: (postgres: "0a8957eabf64b14a27e7f7ecd991137c25f56264ed21eea788b778d5780db19f", sqlite: "3fd10d65008a74c15722b090df65f065a28747c3400024bf3b2ec16fb92ea53e"),
        12: (postgres: "555fb8e7975213f91cdb496e9c79cc34f599c8eb8f7d44008f9dee803363ed90", sqlite: "57276482baae1af06576c20171f2d8c2fbc01c81e085cec8efa9dc3418b3fe5f"),
        13: (postgres: "69ef6db7409712e5c16908a8c050dd5693575bc408b12a77fbbf4d87e06bcfb9", sqlite: "3fa2a62c9f9810806a9f146a945c9ee18e9c1a76a3c9a3e902ddf1e3aa0c90bc"),
        14: (postgres: "b3171d1efd694ed0628f139f595b45f4e2354cb62bc2f8af920dc1216e2acccb", sqlite: "b3171d1efd694ed0628f139f595b45f4e2354cb62bc2f8af920dc1216e2acccb"),
        15: (postgres: "e90a53478d0632dd6fdd2b45b536dc2ab463172fc9e7bd97e93961bf90644d65", sqlite: "a493ae81bef21f9988b1da16ee30d64c9212cab8b2d0fb656fe7bdc5a8499e2c"),
        16: (postgres: "30b5afb230e2fc845739f82ffa930ed5f14241ae0019fadfb50a54f208d7499f", sqlite: "30b5afb230e2fc845739f82ffa930ed5f14241ae0019fadfb50a54f208d7499f"),
        17: (postgres: "34172c35aca5305dcf1f5e7c395ac8e0fb854759092d34ac45243f9203515cf6", sqlite: "7878f0fdf52348e2aaecef757d6831633b92017a58a44e8343c557b0a7c336d3"),
        18: (postgres: "e341df82236e0895c9a7e8f5e0ed4adb908e4e6ad62aa66057c16694fcea5aa1", sqlite: "4b4074f6e38d91822c899df48b785505057a21946471a81bd9114d782c67710c"),
        19: (postgres: "109bf488c0261c2e6137fd6222248897d6e252191a95fcae5dbd1bd68d099f4b", sqlite: "58c5ada7fb6fc614ad022157046918a534307f0f263ea14a4fa0f6133ec8c01e"),
        20: (postgres: "a9134405cae2c9f094ab36e69efc2aecab0516346b54720109b4f460fb9bd9b0", sqlite: "bbaefcf38ef531ecfa9105ddd2a186af4ce8b028ada7cd4a941f64cfd3b353e8"),
        21: (postgres: "caf4ae479493c47fb3d22cff059eb3ac27b9160a02e456f9d7343a8c14a4b630", sqlite: "caf4ae479493c47fb3d22cff059eb3ac27b9160a02e456f9d7343a8c14a4b630"),
        22: (postgres: "f722ba36209bb264eaad01b06a2fe54a6133284497c80b20808776aa5652550e", sqlite: "7fe7888ec0cfa893df03b2b46223229b7c4b4e632633eead142c46416e7ed674"),
        23: (postgres: "6fa8fadfc1fec5f5d08ca9e7dca1383237bdc738f92ae7e0e519e1bac36008ae", sqlite: "15967f322feec608e3322efbfbd3076f9829608f01af7ec54390e4172110d10d"),
        24: (postgres: "c9d2ca2e9408b270c5f633d6647b0cbf216f9959161d64a16a8bc5ea25e41a4b", sqlite: "011f4f061d22380ac899e388b0580075fa74549960beb6c52fc6dcc6f6de59a9"),
        25: (postgres: "53ba60aff81fb72b6b73eba0098e3c5d9329aa84760c44e1ed5cb46c1a8fd4bf", sqlite: "e5d1332fdf849bb04988b7f5b2b7e424d4182c682b6e1674c9cd55b82d91a881"),
    ]

    @Test("every applied migration's SQL is the SQL it shipped with", arguments: Backend.allCases)
    func appliedMigrationsAreUnchanged(_ backend: Backend) throws {
        let dialect: SQLDialect = backend == .postgres ? .postgres : .sqlite
        for migration in Migration.all {
            let digest = Hex.encode(try Digest.sha256().hash(Array(migration.sql(for: dialect).utf8)))
            guard let pin = Self.pins[migration.version] else {
                Issue.record("migration \(migration.version) (\(migration.name)) has no pin: once it is final, record its \(backend) SHA-256 \(digest)")
                continue
            }
            #expect(
                digest == (backend == .postgres ? pin.postgres : pin.sqlite),
                "migration \(migration.version) (\(migration.name)): its \(backend) SQL changed. An applied migration must never be edited; add a new migration instead"
            )
        }
        let removed = Set(Self.pins.keys).subtracting(Migration.all.map(\.version))
        #expect(removed.isEmpty, "pinned migrations \(removed.sorted()) are gone: an applied migration must never be removed; add a new migration instead")
    }
}
