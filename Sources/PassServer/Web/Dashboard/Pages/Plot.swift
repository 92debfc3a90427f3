import Foundation

/// Plots drawn on the server as inline SVG (no script), each in a `<figure>` with its numbers
/// twice for screen readers: the SVG's `<title>` and `<desc>` say what it shows and its total, and
/// a visually hidden table beside it holds every number the bars are drawn from. Colours come
/// from the stylesheet's classes (the Content-Security-Policy allows no inline style).
enum Plot {
    /// One bar of a column plot: the label its table row has, and its value.
    struct Column: Sendable, Equatable {
        var label: String
        var value: Int
    }

    /// One row of a bar plot: a label and its values, drawn end to end (`classes` names each part).
    struct Row: Sendable, Equatable {
        var label: String
        var values: [Int]
    }

    private static let width = 640.0

    /// Vertical bars over time: `columns` in order, every `tickEvery`-th labelled below with
    /// `tick(index)`. The table has `headers` (the bucket's, the value's).
    static func columns(
        id: String, title: String, summary: String, headers: (String, String), columns: [Column], tick: (Int) -> String
    ) -> HTML {
        let (left, right, top, bottom) = (44.0, 8.0, 12.0, 40.0)
        let height = 220.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let peak = max(columns.map(\.value).max() ?? 0, 1)
        let step = plotWidth / Double(max(columns.count, 1))
        let gap = step > 4 ? 1.0 : 0
        var marks: HTML = """
            <line class="axis" x1="\(number(left))" y1="\(number(top + plotHeight))" x2="\(number(width - right))" y2="\(number(top + plotHeight))"/>
            <line class="grid" x1="\(number(left))" y1="\(number(top))" x2="\(number(width - right))" y2="\(number(top))"/>
            <text class="tick" x="\(number(left - 6))" y="\(number(top + 4))" text-anchor="end">\(DashboardLayout.count(peak))</text>
            <text class="tick" x="\(number(left - 6))" y="\(number(top + plotHeight + 4))" text-anchor="end">0</text>
            """
        for (index, column) in columns.enumerated() {
            let barHeight = Double(column.value) / Double(peak) * plotHeight
            let x = left + Double(index) * step
            marks += """
                <rect class="plot-bar" x="\(number(x + gap / 2))" y="\(number(top + plotHeight - barHeight))" width="\(number(max(step - gap, 0.5)))" \
                height="\(number(barHeight))" data-value="\(column.value)"><title>\(column.label): \(DashboardLayout.count(column.value))</title></rect>
                """
        }
        let tickEvery = max(1, Int((Double(columns.count) / 5).rounded(.up)))
        for index in stride(from: 0, to: columns.count, by: tickEvery) {
            let x = left + Double(index) * step
            marks += """
                <line class="axis" x1="\(number(x))" y1="\(number(top + plotHeight))" x2="\(number(x))" y2="\(number(top + plotHeight + 4))"/>
                <text class="tick" x="\(number(x))" y="\(number(top + plotHeight + 18))">\(tick(index))</text>
                """
        }
        let rows = columns.map { [$0.label, DashboardLayout.count($0.value)] }
        return figure(id: id, title: title, summary: summary, height: height, marks: marks, table: table([headers.0, headers.1], rows))
    }

    /// Horizontal bars, one per row, its values end to end (`classes[i]` for value `i`, named
    /// in the legend by `legend[i]`). The table has `headers`: the label's, then one per value.
    static func rows(
        id: String, title: String, summary: String, headers: [String], rows: [Row], classes: [String], legend: [String]
    ) -> HTML {
        let (labelWidth, rowHeight, top) = (150.0, 30.0, legend.count > 1 ? 28.0 : 6.0)
        let barWidth = width - labelWidth - 70
        let peak = max(rows.map { $0.values.reduce(0, +) }.max() ?? 0, 1)
        let height = top + Double(max(rows.count, 1)) * rowHeight + 6
        var marks = HTML.empty
        if legend.count > 1 {
            for (index, name) in legend.enumerated() {
                let x = labelWidth + Double(index) * 150
                marks += """
                    <rect class="\(classes[index % classes.count])" x="\(number(x))" y="6" width="12" height="12"/>
                    <text class="tick" x="\(number(x + 18))" y="16" text-anchor="start">\(name)</text>
                    """
            }
        }
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            marks += """
                <text class="label" x="\(number(labelWidth - 8))" y="\(number(y + 19))" text-anchor="end">\(clip(row.label, 22))</text>
                """
            var x = labelWidth
            for (part, value) in row.values.enumerated() {
                let length = Double(value) / Double(peak) * barWidth
                marks += """
                    <rect class="\(classes[part % classes.count])" x="\(number(x))" y="\(number(y + 5))" width="\(number(length))" height="20" \
                    data-value="\(value)"><title>\(row.label), \(legend.indices.contains(part) ? legend[part] : ""): \(DashboardLayout.count(value))</title></rect>
                    """
                x += length
            }
            marks += """
                <text class="tick" x="\(number(x + 6))" y="\(number(y + 19))" text-anchor="start">\(DashboardLayout.count(row.values.reduce(0, +)))</text>
                """
        }
        let cells = rows.map { [$0.label] + $0.values.map { DashboardLayout.count($0) } }
        return figure(id: id, title: title, summary: summary, height: height, marks: marks, table: table(headers, cells))
    }

    /// The figure: heading, the SVG with its title and description, the hidden table.
    private static func figure(id: String, title: String, summary: String, height: Double, marks: HTML, table: HTML) -> HTML {
        """
        <figure class="plot" id="\(id)">
        <figcaption><h2>\(title)</h2><p class="muted">\(summary)</p></figcaption>
        <svg viewBox="0 0 \(number(width)) \(number(height))" role="img" aria-labelledby="\(id)-title \(id)-desc" xmlns="http://www.w3.org/2000/svg">
        <title id="\(id)-title">\(title)</title><desc id="\(id)-desc">\(summary) The numbers are in the table that follows.</desc>
        \(marks)
        </svg>
        <table class="sr-only plot-data" id="\(id)-data"><caption>\(title)</caption>\(table)</table>
        </figure>
        """
    }

    private static func table(_ headers: [String], _ rows: [[String]]) -> HTML {
        let head = HTML(joining: headers.map { #"<th scope="col">\#($0)</th>"# as HTML })
        let body = HTML(joining: rows.map { cells in
            let rest = HTML(joining: cells.dropFirst().map { "<td>\($0)</td>" as HTML })
            return #"<tr><th scope="row">\#(cells.first ?? "")</th>\#(rest)</tr>"# as HTML
        })
        return "<thead><tr>\(head)</tr></thead><tbody>\(body)</tbody>"
    }

    /// An SVG coordinate: one decimal at most.
    private static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    private static func clip(_ text: String, _ length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }
}
