import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionDataset
import Testing
@testable import MotionReport

/// The page of the fixture dataset: well-formed XML, one chart per section with the counts of
/// manifest.json, self-contained, both colour schemes.
@Suite struct ReportPageTests {
    let rendered: Report.Rendered
    let page: PageDocument
    let manifest: DatasetManifest

    init() throws {
        rendered = try Fixture.rendered.get()
        page = try PageDocument(rendered.html)
        manifest = try DatasetManifest.load(directory: try Fixture.dataset())
    }

    /// The manifest's splits in order, as the page lists them.
    var splits: [(name: String, numWindows: Int, classCounts: [Int])] {
        manifest.splitNames.compactMap { n in manifest.splits[n].map { (n.rawValue, $0.numWindows, $0.classCounts) } }
    }

    @Test func pageIsWellFormedXHTMLWithEverySection() {
        #expect(page.root.localName == "html")
        let sections = page.elements("section").compactMap { $0.attr("data-section") }
        #expect(sections == ["summary", "class-balance", "subjects", "distributions", "examples"])
    }

    @Test func pageIsSelfContained() {
        let html = rendered.html
        #expect(!html.contains("<script"))
        #expect(!html.contains("src="))
        #expect(!html.contains("<link"))
        #expect(!html.contains("@import"))
        #expect(!html.contains("url("))
        // The only absolute URIs are XML namespace names, which browsers never fetch.
        let uris = html.components(separatedBy: "http").dropFirst().map { String($0.prefix(30)) }
        #expect(uris.allSatisfy { $0.hasPrefix("://www.w3.org/") }, "\(uris)")
        #expect(html.contains("@media (prefers-color-scheme: dark)"))
    }

    @Test func classBalanceBarsEqualTheManifest() throws {
        let charts = page.elements("svg", where: "data-chart", is: "class-balance")
        try #require(charts.count == 1)
        let bars = charts[0].descendants("rect")
        #expect(bars.count == splits.count * manifest.classes.count)
        for split in splits {
            for (k, name) in manifest.classes.enumerated() {
                let bar = bars.filter { $0.attr("data-split") == split.name && $0.attr("data-class") == name }
                #expect(bar.count == 1 && bar.first?.attr("data-count") == String(split.classCounts[k]),
                        "\(split.name)/\(name)")
            }
        }
        let legend = page.elements("ul", where: "data-legend", is: "classes")
        #expect(legend.first?.descendants("li").compactMap { $0.attr("data-name") } == manifest.classes)
    }

    @Test func summaryTableEqualsTheManifest() {
        let rows = page.elements("tr").filter { $0.attr("data-split") != nil }
        #expect(rows.map { $0.attr("data-split")! } == splits.map { $0.name })
        for (row, split) in zip(rows, splits) {
            #expect(row.attr("data-windows") == String(split.numWindows))
            let cells = row.descendants("td").compactMap { $0.attr("data-count") }
            #expect(cells == split.classCounts.map(String.init))
        }
        let checks = page.elements("div", where: "class", is: "checks")
        #expect(checks.first?.attr("data-issues") == "0", "the fixture's files agree with its manifest")
        let channels = page.elements("tr").compactMap { $0.attr("data-channel") }
        #expect(channels == manifest.channels.map(\.name))
    }

    @Test func subjectChartHasOneSegmentPerSubjectAndSplit() throws {
        let charts = page.elements("svg", where: "data-chart", is: "subjects")
        try #require(charts.count == 1)
        #expect(charts[0].attr("data-subjects") == String(manifest.subjects.count))
        #expect(charts[0].attr("data-leaks") == "0")
        let segments = charts[0].descendants("rect")
        let total = segments.compactMap { Int($0.attr("data-count") ?? "") }.reduce(0, +)
        #expect(total == splits.reduce(0) { $0 + $1.numWindows })
        // Split by subject: each subject appears in exactly one split.
        #expect(Set(segments.compactMap { $0.attr("data-subject") }).count == segments.count)
    }

    @Test func oneHistogramPerChannelOverEveryTrainSample() {
        let charts = page.elements("svg", where: "data-chart", is: "histogram")
        #expect(charts.compactMap { $0.attr("data-channel") } == manifest.channels.map(\.name))
        let train = splits.first { $0.name == "train" }!.numWindows
        for c in charts {
            #expect(c.attr("data-total") == String(train * manifest.windowLength), "\(c.attr("data-channel") ?? "")")
            #expect(c.descendants("path").count == 1)
        }
    }

    @Test func examplesPerClassDrawOneChartPerSensorAndLinePerAxis() {
        let groups = SensorGroup.make(manifest.channels)
        for name in manifest.classes {
            let figures = page.elements("figure", where: "data-class", is: name)
            #expect(figures.count == 3, "\(name)")
            for f in figures {
                let charts = f.descendants("svg")
                #expect(charts.compactMap { $0.attr("data-sensor") } == groups.map(\.name))
                let lines = charts.flatMap { $0.descendants("polyline") }.compactMap { $0.attr("data-channel") }
                #expect(lines == groups.flatMap { $0.channels.map { manifest.channels[$0].name } })
                #expect(Set(lines) == Set(manifest.channels.map(\.name)), "every channel is drawn once")
                #expect(f.attr("data-split") == "train")
            }
        }
    }

    @Test func pageIsDeterministicAndSmall() throws {
        let again = try Report.render(directory: try Fixture.dataset())
        #expect(again.html == rendered.html)
        #expect(rendered.html.utf8.count < 2_000_000)
    }

    @Test func sampledHistogramsSayHowManyWindowsTheyUse() throws {
        var options = StatisticsOptions()
        options.histogramWindows = 16
        options.blockRows = 8
        options.examplesPerClass = 1
        let r = try Report.render(directory: try Fixture.dataset(), options: options)
        #expect(r.statistics.histogramWindows < r.statistics.trainWindows)
        #expect(r.statistics.histogramWindows == 16)
        #expect(r.statistics.histograms.allSatisfy { $0.total == 16 * r.manifest.windowLength })
        let saysSo = r.html.contains("of \(Markup.count(r.statistics.trainWindows)) train windows")
        #expect(saysSo)
        let doc = try PageDocument(r.html)
        #expect(doc.elements("figure").filter { $0.attr("class") == "example" }.count == r.manifest.classes.count)
    }
}
