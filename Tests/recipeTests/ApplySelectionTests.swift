import Foundation
import Testing
import TestSupport

/// `apply --select`: a folder of photos marked three ways (Lightroom's `IMG.xmp`, Camera Raw's and
/// darktable's `IMG.jpg.xmp`, XMP embedded in the JPEG by exiftool); the photos `--dry-run` says
/// are selected must be exactly those exiftool's reading of the same files selects.
@Suite("apply --select: rating, label, keywords")
struct ApplySelectionTests: CLITest {
    static let labels = ["Red", "Yellow", "", "Green", "Red", "Blue"]

    func sidecar(rating: Int, label: String, keywords: [String]) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
         <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
          xmp:Rating="\(rating)"\(label.isEmpty ? "" : " xmp:Label=\"\(label)\"")>
          <dc:subject><rdf:Bag>\(keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined())</rdf:Bag></dc:subject>
         </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    @Test("the photos selected are those exiftool's reading selects", Requirement.tool("exiftool"))
    func matchesExiftool() throws {
        let exiftool = try Requirement.path("exiftool")
        let dir = TestPaths.temporaryDirectory("select").path
        let folder = dir + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var marks: [String: String] = [:]   // photo → the file exiftool reads its marks from
        for i in 0..<24 {
            let name = String(format: "IMG_%04d", i)
            let photo = "\(folder)/\(name).jpg"
            try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
            let rating = i % 7 - 1, label = Self.labels[i % Self.labels.count], keywords = i % 3 == 0 ? ["wedding", "ceremony"] : ["street"]
            switch i % 3 {
            case 0:
                try write(sidecar(rating: rating, label: label, keywords: keywords), "\(folder)/\(name).xmp")
                marks[name + ".jpg"] = "\(folder)/\(name).xmp"
            case 1:
                try write(sidecar(rating: rating, label: label, keywords: keywords), "\(photo).xmp")
                marks[name + ".jpg"] = "\(photo).xmp"
            default:
                var args = ["-q", "-overwrite_original", "-XMP-xmp:Rating=\(rating)"] + keywords.map { "-XMP-dc:Subject+=\($0)" }
                if !label.isEmpty { args.append("-XMP-xmp:Label=\(label)") }
                let r = try ExternalTool.run(exiftool, args + [photo])
                #expect(r.status == 0, "\(r.stderr)")
                marks[name + ".jpg"] = photo
            }
        }
        // exiftool's reading: rating >= 3 and label == red, and keyword == wedding and not rejected.
        let names = marks.keys.sorted()
        let read = try ExternalTool.run(exiftool, ["-j", "-XMP-xmp:Rating", "-XMP-xmp:Label", "-XMP-dc:Subject"] + names.map { marks[$0]! })
        let records = try JSONSerialization.jsonObject(with: read.stdout) as? [[String: Any]] ?? []
        #expect(records.count == names.count)
        var first: Set<String> = [], second: Set<String> = []
        for (name, record) in zip(names, records) {
            let rating = (record["Rating"] as? NSNumber)?.intValue ?? 0
            let label = (record["Label"] as? String ?? "").lowercased()
            let subjects = (record["Subject"] as? [String]) ?? (record["Subject"] as? String).map { [$0] } ?? []
            if rating >= 3 && label == "red" { first.insert(name) }
            if subjects.contains("wedding") && rating >= 0 { second.insert(name) }
        }
        try write("format: dev.recipe.edit\nversion: 1.4\nstages: []\n", dir + "/none.recipe.yaml")
        for (expression, expected) in [("rating >= 3 and label == red", first), ("keyword == wedding and not rejected", second)] {
            let out = try ok(["apply", "--recipe", dir + "/none.recipe.yaml", folder, "-o", dir + "/out", "--select", expression, "--dry-run", "--progress", "none"])
            let selected = Set(out.split(separator: "\n").filter { $0.hasPrefix("selected: ") }.map { String($0.dropFirst(10).prefix { $0 != " " }) })
            print("apply --select '\(expression)': \(selected.count) of \(names.count) selected; exiftool's reading: \(expected.count)")
            #expect(selected == expected, "\(expression)")
            #expect(!expected.isEmpty)
        }
        let bad = try recipe(["apply", "--recipe", dir + "/none.recipe.yaml", folder, "-o", dir + "/out", "--select", "stars > 2"])
        #expect(bad.status == 2 && bad.stderr.contains("`stars` is not a field"))
    }
}
