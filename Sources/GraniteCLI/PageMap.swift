// `granite stats --svg`: a picture of the file, one square per page in page order, coloured by owner.

import GraniteStorage

/// The page map of one file as SVG text.
struct PageMap {
    /// One colour of the legend.
    struct Entry {
        var label: String
        var colour: String
        var pages: Int
    }

    /// The colour of each page, indexed by page number − 1.
    var colours: [String] = []
    /// The legend, in the order it is drawn.
    var legend: [Entry] = []

    static let columns = 64
    static let cell = 10
    static let gap = 1
    static let margin = 10
    static let legendRow = 18

    static let headerColour = "#222222"
    static let freeColour = "#b0b0b0"
    static let unreadableColour = "#e00000"
    static let unattributedColour = "#ffffff"
    /// Tree colours, largest tree first; trees past the end share the last one.
    static let palette = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#aec7e8",
        "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#6b6ecf",
    ]

    init(report: StatsReport, analysis: SpaceAnalysis) {
        // Colours go to the trees by size, as the report lists them; trees beyond the palette share "other".
        var treeColour: [String: String] = [:]
        var other = 0
        for (rank, object) in report.objects.enumerated() where object.pages > 0 {
            if rank < Self.palette.count - 1 {
                treeColour[object.tree] = Self.palette[rank]
                let label = object.kind == "catalog" ? "catalog" : "\(object.name) (\(object.kind))"
                legend.append(Entry(label: label, colour: Self.palette[rank], pages: object.pages))
            } else {
                treeColour[object.tree] = Self.palette[Self.palette.count - 1]
                other += object.pages
            }
        }
        if other > 0 {
            legend.append(Entry(label: "other trees", colour: Self.palette[Self.palette.count - 1], pages: other))
        }
        legend.append(Entry(label: "header", colour: Self.headerColour, pages: report.headerPages))
        legend.append(
            Entry(label: "freelist", colour: Self.freeColour, pages: report.freePages + report.freelistTrunkPages))
        var unreadable = 0
        for use in analysis.pages.dropFirst() {
            switch use {
            case .header: colours.append(Self.headerColour)
            case .free, .freelistTrunk: colours.append(Self.freeColour)
            case .tree(let index):
                colours.append(treeColour[analysis.trees[index].info.name] ?? Self.unattributedColour)
            case .unreadable:
                colours.append(Self.unreadableColour)
                unreadable += 1
            case .unattributed: colours.append(Self.unattributedColour)
            }
        }
        if unreadable > 0 {
            legend.append(Entry(label: "unreadable", colour: Self.unreadableColour, pages: unreadable))
        }
        if report.unattributedPages > 0 {
            legend.append(
                Entry(label: "unattributed", colour: Self.unattributedColour, pages: report.unattributedPages))
        }
    }

    /// The SVG document.
    func svg() -> String {
        let step = Self.cell + Self.gap
        let rows = (colours.count + Self.columns - 1) / Self.columns
        let width = max(2 * Self.margin + Self.columns * step, 360)
        let mapHeight = rows * step
        let height = 2 * Self.margin + mapHeight + Self.margin + legend.count * Self.legendRow
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="\(width)" height="\(height)" fill="#ffffff"/>

            """
        for (index, colour) in colours.enumerated() {
            let x = Self.margin + (index % Self.columns) * step
            let y = Self.margin + (index / Self.columns) * step
            out += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(Self.cell)\" height=\"\(Self.cell)\" fill=\"\(colour)\" "
            out += "stroke=\"#888888\" stroke-width=\"0.5\"><title>page \(index + 1)</title></rect>\n"
        }
        var y = 2 * Self.margin + mapHeight
        for entry in legend {
            out += "<rect x=\"\(Self.margin)\" y=\"\(y)\" width=\"\(Self.cell)\" height=\"\(Self.cell)\" "
            out += "fill=\"\(entry.colour)\" stroke=\"#888888\" stroke-width=\"0.5\"/>\n"
            let label = "\(entry.label): \(grouped(entry.pages)) page\(entry.pages == 1 ? "" : "s")"
            out += "<text x=\"\(Self.margin + step + 4)\" y=\"\(y + Self.cell - 1)\">\(Self.escaped(label))</text>\n"
            y += Self.legendRow
        }
        out += "</svg>\n"
        return out
    }

    /// `text` with the characters XML gives a meaning to replaced by entities (names come from the file).
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // Control characters are not allowed in XML 1.0 text.
                if let ascii = character.asciiValue, ascii < 0x20, ascii != 0x09, ascii != 0x0A {
                    out += "?"
                } else {
                    out += String(character)
                }
            }
        }
        return out
    }
}
