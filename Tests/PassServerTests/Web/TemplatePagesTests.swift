import Foundation
import PassBundle
import Testing

@testable import PassServer

/// The Templates pages rendered from values built by hand: the list and its upload form, and an
/// uploaded template's fields with the mapping form an admin uses and a viewer only reads.
@Suite("Dashboard: template pages as functions of their values", .offCooperativePool)
struct TemplatePagesTests {
    static let fields = [
        TemplateSummary.Field(key: "holder", label: "Attendee Name", value: "John Appleseed", area: "auxiliary"),
        TemplateSummary.Field(key: "startDate", label: "Date", value: "2027-03-14T19:30:00+01:00", area: "secondary", isDate: true),
        TemplateSummary.Field(key: "seat-info", label: "Seat", value: "Row C", area: "auxiliary"),
    ]
    static let uploaded = TemplateSummary(
        name: "gala", origin: .uploaded, fields: fields, extraFields: ["vip"],
        mapping: ["holder": .attendeeName, "startDate": .startsAt, "seat-info": .extra("vip")], notes: ["nfc was removed"], updatedAt: Date(timeIntervalSince1970: 1_800_000_000)
    )

    @Test("the list shows every template with its origin; only an admin gets the upload form, with each refusal under its field")
    func list() {
        let folder = TemplateSummary(name: "event-ticket", origin: .file, fields: Self.fields, extraFields: ["tier"])
        let broken = TemplateSummary(name: "broken", origin: .file, fields: [], problem: "pass.json is not valid JSON")
        let form = FormState(values: ["name": "Gala"]).refused(.invalid([.init("name", "must be lowercase"), .init("archive", "template: has no icon"), .init("archive", "template: has no pass.json")]))
        let admin = TemplatesPage(templates: [folder, broken, Self.uploaded], visitor: DashboardPagesTests.admin, form: form ?? FormState()).render().markup
        #expect(admin.contains(#"href="/admin/templates/gala">gala</a>"#) && admin.contains("Uploaded") && admin.contains("Folder"))
        #expect(admin.contains("does not load: pass.json is not valid JSON"))
        #expect(admin.contains(#"<form method="post" action="/admin/templates" enctype="multipart/form-data""#))
        #expect(admin.contains("<li>template: has no icon</li><li>template: has no pass.json</li>"), "every reason of the archive")
        #expect(admin.contains(#"value="Gala""#) && admin.contains("must be lowercase"))
        let viewer = TemplatesPage(templates: [folder], visitor: DashboardPagesTests.viewer).render().markup
        #expect(viewer.contains("event-ticket") && !viewer.contains(#"action="/admin/templates""#))
    }

    @Test("an uploaded template: a select per field with the chosen source; a key that can name a ticket field offers one; a viewer reads the choices")
    func mapping() {
        let admin = TemplatePage(template: Self.uploaded, visitor: DashboardPagesTests.admin).render().markup
        #expect(admin.contains(#"action="/admin/templates/gala/mapping""#))
        #expect(admin.contains(#"name="mapping.holder""#) && admin.contains(#"<option value="attendeeName" selected>"#))
        #expect(admin.contains(#"<option value="extra.holder">"#), "holder can name a ticket field")
        #expect(!admin.contains(#"<option value="extra.seat-info">"#), "seat-info cannot")
        #expect(admin.contains(#"<option value="extra.vip" selected>"#), "the current extra field stays a choice")
        #expect(admin.contains("<li>nfc was removed</li>") && admin.contains(#"<span class="tag">date</span>"#))
        let viewer = TemplatePage(template: Self.uploaded, visitor: DashboardPagesTests.viewer).render().markup
        #expect(!viewer.contains("<select") && !viewer.contains(#"action="/admin/templates/gala/mapping""#))
        #expect(viewer.contains("Attendee name") && viewer.contains("Start (date and time)"))
    }

    @Test("a folder template lists its fields as its pass.json has them, with no mapping form")
    func folder() {
        let folder = TemplateSummary(name: "event-ticket", origin: .file, fields: [.init(key: "event", label: "EVENT", value: "{{eventName}}", area: "primary")])
        let page = TemplatePage(template: folder, visitor: DashboardPagesTests.admin).render().markup
        #expect(page.contains("<td>{{eventName}}</td>") && !page.contains("<select"))
    }
}
