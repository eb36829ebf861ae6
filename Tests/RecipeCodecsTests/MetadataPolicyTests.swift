import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// The export metadata policy against exiftool, the independent reference: exiftool writes GPS,
/// serial numbers, place names, credits and a thumbnail into a photo (EXIF, XMP and IPTC), recipe
/// decodes it, applies a policy and encodes it, and exiftool reads back what went out.
@Suite("Metadata policy")
struct MetadataPolicyTests {
    static let copyright = "© 2026 Zoë Ångström"
    /// 26 bytes: within IIM's 32 for a By-line.
    static let creator = "Smith & <Sons> \"Zoë\" 'Å'"

    /// The tags written into the test photo. Location: EXIF GPS, XMP exif:GPS…, photoshop:City
    /// and Country, Iptc4xmpCore Location and CountryCode, IPTC city to country. Serials: EXIF,
    /// XMP aux and exifEX. What must stay: dates, camera, exposure, a rating, IPTC keywords.
    static let writtenTags = [
        "-ExifVersion=0232", "-GPSLatitude=12.5824411", "-GPSLatitudeRef=N", "-GPSLongitude=98.7654321", "-GPSLongitudeRef=W",
        "-GPSAltitude=1234.5", "-GPSAltitudeRef=0", "-SerialNumber=BODY7349201", "-LensSerialNumber=LENS5518830", "-OwnerName=Olga Owner",
        "-XMP-exif:GPSLatitude=12.5824411", "-XMP-exif:GPSLongitude=-98.7654321", "-XMP-exif:GPSAltitude=1234.5",
        "-XMP-aux:SerialNumber=BODY7349201", "-XMP-aux:LensSerialNumber=LENS5518830", "-XMP-exifEX:SerialNumber=BODY7349201",
        "-XMP-exifEX:OwnerName=Olga Owner", "-XMP-photoshop:City=Reykjavik", "-XMP-photoshop:Country=Iceland",
        "-XMP-iptcCore:Location=Harbour", "-XMP-iptcCore:CountryCode=ISL", "-XMP-xmp:Rating=4",
        "-IPTC:City=Reykjavik", "-IPTC:Sub-location=Harbour", "-IPTC:Province-State=Capital", "-IPTC:Country-PrimaryLocationCode=ISL",
        "-IPTC:Country-PrimaryLocationName=Iceland", "-IPTC:Keywords=harbour",
        "-Artist=Old Artist", "-Copyright=Old Copyright", "-XMP-dc:Creator=Old Artist", "-XMP-dc:Rights=Old Copyright",
        "-IPTC:By-line=Old Artist", "-IPTC:CopyrightNotice=Old Copyright",
        "-DateTimeOriginal=2021:06:07 08:09:10", "-Make=TestMake", "-Model=TestModel", "-ExposureTime=1/250", "-FNumber=5.6", "-ISO=400",
        "-ExifImageWidth=227", "-ExifImageHeight=149",
    ]

    /// The tags (exiftool group:name) of the location, the serials and the credits.
    static let locationTags = [
        "GPS:GPSLatitude", "GPS:GPSLongitude", "GPS:GPSAltitude", "GPS:GPSLatitudeRef", "GPS:GPSVersionID", "XMP-exif:GPSLatitude",
        "XMP-exif:GPSLongitude", "XMP-exif:GPSAltitude", "XMP-photoshop:City", "XMP-photoshop:Country", "XMP-iptcCore:Location",
        "XMP-iptcCore:CountryCode", "IPTC:City", "IPTC:Sub-location", "IPTC:Province-State", "IPTC:Country-PrimaryLocationCode",
        "IPTC:Country-PrimaryLocationName",
    ]
    static let serialTags = [
        "ExifIFD:SerialNumber", "ExifIFD:LensSerialNumber", "ExifIFD:OwnerName", "XMP-aux:SerialNumber", "XMP-aux:LensSerialNumber",
        "XMP-exifEX:SerialNumber", "XMP-exifEX:OwnerName",
    ]
    static let creditTags = ["IFD0:Artist", "IFD0:Copyright", "XMP-dc:Creator", "XMP-dc:Rights", "IPTC:By-line", "IPTC:CopyrightNotice"]
    static let keptTags = [
        "ExifIFD:DateTimeOriginal", "IFD0:Make", "IFD0:Model", "ExifIFD:ExposureTime", "ExifIFD:FNumber", "ExifIFD:ISO",
        "XMP-xmp:Rating", "IPTC:Keywords", "IFD1:ThumbnailLength",
    ]

    /// ljt_testorig.jpg (no metadata of its own) tagged by exiftool, its EXIF in `byteOrder`
    /// with a thumbnail; the big-endian one with XMP in attribute form (exiftool's shorthand).
    static func tagged(in dir: URL, byteOrder: String) throws -> String {
        let out = dir.appendingPathComponent("tagged-\(byteOrder).jpg").path
        let shorthand = byteOrder == "Big-endian" ? ["-api", "Compact=Shorthand"] : []
        let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-q", "-o", out, "-ExifByteOrder=\(byteOrder)"] + shorthand + writtenTags
            + ["-ThumbnailImage<=\(TestPaths.fixture("jpeg/moz_jpg-size-15x15.jpg"))", TestPaths.fixture("jpeg/ljt_testorig.jpg")])
        try #require(r.status == 0, "exiftool could not tag the photo: \(r.stderr)")
        return out
    }

    /// Runs `body` with a new folder holding the tagged photo (`byteOrder`); removes the folder.
    static func withTagged(_ byteOrder: String, _ body: (_ dir: URL, _ input: String) throws -> Void) throws {
        let dir = TestPaths.temporaryDirectory("policy")
        defer { try? FileManager.default.removeItem(at: dir) }
        try body(dir, try tagged(in: dir, byteOrder: byteOrder))
    }

    /// What exiftool reads (`-j -G1 -a`), each value as text (a list joined with ", ").
    static func tags(_ path: String) throws -> [String: String] {
        let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-j", "-G1", "-a", path])
        try #require(r.status == 0, "exiftool -j failed: \(r.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])
        return try #require(list.first).mapValues { value in
            (value as? [Any]).map { $0.map { "\($0)" }.joined(separator: ", ") } ?? "\(value)"
        }
    }

    /// exiftool's validation warnings and errors of a file.
    static func problems(_ path: String) throws -> Set<String> {
        let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-validate", "-warning", "-error", "-a", "-s", path])
        return Set(String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("Validate") })
    }

    /// The embedded thumbnail's bytes, as exiftool extracts them.
    static func thumbnail(_ path: String) throws -> Data {
        try ExternalTool.run(try Requirement.path("exiftool"), ["-b", "-ThumbnailImage", path]).stdout
    }

    /// The GPS coordinates of `path` as they are stored: each EXIF rational triple (exiftool
    /// -v2 prints the numerators and denominators) in the block's byte order, and each XMP text.
    static func coordinateBytes(_ path: String, bigEndian: Bool) throws -> [[UInt8]] {
        let dump = String(decoding: try ExternalTool.run(try Requirement.path("exiftool"), ["-v2", path]).stdout, as: UTF8.self)
        var patterns: [[UInt8]] = []
        for line in dump.split(separator: "\n") where line.contains("GPSLatitude =") || line.contains("GPSLongitude =") || line.contains("GPSAltitude =") {
            let value = line.split(separator: "=", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
            if let open = value.firstIndex(of: "("), value.hasSuffix(")") {
                let rationals = value[value.index(after: open)..<value.index(before: value.endIndex)].split(separator: " ")
                patterns.append(rationals.flatMap { r in
                    r.split(separator: "/").compactMap { UInt32($0) }.flatMap { v in
                        let be = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
                        return bigEndian ? be : be.reversed()
                    }
                })
            } else if value.contains(",") {
                patterns.append(Array(value.utf8))  // XMP: "12,34.946466N"
            }
        }
        return patterns
    }

    /// Decodes `input`, applies `policy`, encodes as `ext` into `dir`; returns the output path.
    static func export(_ input: String, _ policy: MetadataPolicy, in dir: URL, as ext: String = "jpg") throws -> String {
        let out = dir.appendingPathComponent("out-\(UUID().uuidString).\(ext)").path
        _ = try reencode(input, as: ext, keepAt: out, policy: policy)
        return out
    }

    static func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, hay.count >= needle.count else { return false }
        return (0...(hay.count - needle.count)).contains { i in hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) }
    }

    /// The checks every export makes: exiftool finds no new problem, nothing of `gone` is read,
    /// everything of `kept` reads as in the input, the thumbnail is the same bytes when kept, the
    /// output's bytes hold none of `absent`.
    static func check(input: String, output: String, gone: [String], kept: [String], absent: [[UInt8]] = [], _ what: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        for pattern in absent { #expect(!contains(bytes, pattern), "\(what): \(String(decoding: pattern, as: UTF8.self)) \(pattern) in the bytes") }
        let before = try tags(input), after = try tags(output)
        let newProblems = try problems(output).subtracting(try problems(input))
        #expect(newProblems.isEmpty, "\(what): exiftool -validate: \(newProblems.sorted())")
        for tag in gone { #expect(after[tag] == nil, "\(what): \(tag) = \(after[tag] ?? "") still there") }
        for tag in kept {
            #expect(before[tag] != nil, "\(what): the input lacks \(tag)")
            #expect(after[tag] == before[tag], "\(what): \(tag) was \(before[tag] ?? "nil"), is \(after[tag] ?? "nil")")
        }
        if kept.contains("IFD1:ThumbnailLength") { #expect(try thumbnail(output) == thumbnail(input), "\(what): thumbnail changed") }
    }

    /// exiftool reads `copyright` and `creator` in each of `groups`: EXIF IFD0, XMP dc, IPTC.
    static func expectCredits(_ after: [String: String], copyright: String, creator: String, in groups: [String] = ["IFD0", "XMP-dc", "IPTC"],
                              _ what: String)
    {
        let names = ["IFD0": ("Copyright", "Artist"), "XMP-dc": ("Rights", "Creator"), "IPTC": ("CopyrightNotice", "By-line")]
        for group in groups {
            let (copyrightTag, creatorTag) = names[group]!
            #expect(after["\(group):\(copyrightTag)"] == copyright, "\(what): \(group):\(copyrightTag) is \(after["\(group):\(copyrightTag)"] ?? "nil")")
            #expect(after["\(group):\(creatorTag)"] == creator, "\(what): \(group):\(creatorTag) is \(after["\(group):\(creatorTag)"] ?? "nil")")
        }
    }

    @Test("stripLocation: GPS IFD, XMP location and IPTC place names gone, no coordinate left in the bytes; the rest as it was",
          Requirement.tool("exiftool"), arguments: ["Little-endian", "Big-endian"])
    func stripLocation(_ byteOrder: String) throws {
        try Self.withTagged(byteOrder) { dir, input in
            let patterns = try Self.coordinateBytes(input, bigEndian: byteOrder == "Big-endian")
            #expect(patterns.count == 5, "exiftool -v2 showed \(patterns.count) coordinates")
            let output = try Self.export(input, MetadataPolicy(stripLocation: true), in: dir)
            try Self.check(input: input, output: output, gone: Self.locationTags, kept: Self.keptTags + Self.serialTags + Self.creditTags + ["File:ExifByteOrder"],
                           absent: patterns + ["GPS", "Reykjavik", "Harbour"].map { Array($0.utf8) }, byteOrder)
        }
    }

    @Test("stripSerials: serial numbers and owner gone from EXIF and XMP, their bytes zeroed; the rest as it was",
          Requirement.tool("exiftool"), arguments: ["Little-endian", "Big-endian"])
    func stripSerials(_ byteOrder: String) throws {
        try Self.withTagged(byteOrder) { dir, input in
            let output = try Self.export(input, MetadataPolicy(stripSerials: true), in: dir)
            try Self.check(input: input, output: output, gone: Self.serialTags, kept: Self.keptTags + Self.locationTags + Self.creditTags + ["File:ExifByteOrder"],
                           absent: ["BODY7349201", "LENS5518830", "Olga Owner"].map { Array($0.utf8) }, byteOrder)
        }
    }

    @Test("copyright and creator set under .all: read back exactly from EXIF, XMP and IPTC; with both strips, only those gone",
          Requirement.tool("exiftool"), arguments: ["Little-endian", "Big-endian"])
    func setCredits(_ byteOrder: String) throws {
        try Self.withTagged(byteOrder) { dir, input in
            let policy = MetadataPolicy(stripLocation: true, stripSerials: true, copyright: Self.copyright, creator: Self.creator)
            let output = try Self.export(input, policy, in: dir)
            try Self.check(input: input, output: output, gone: Self.locationTags + Self.serialTags, kept: Self.keptTags + ["File:ExifByteOrder"], byteOrder)
            Self.expectCredits(try Self.tags(output), copyright: Self.copyright, creator: Self.creator, byteOrder)
        }
    }

    @Test("Artist and Copyright new to IFD0: IFD0 moves to the end of the block, every other offset (thumbnail, Exif IFD) still holds",
          Requirement.tool("exiftool"), arguments: ["Little-endian", "Big-endian"])
    func ifd0Grows(_ byteOrder: String) throws {
        try Self.withTagged(byteOrder) { dir, input in
            let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-q", "-overwrite_original", "-EXIF:Artist=", "-EXIF:Copyright=", input])
            try #require(r.status == 0 && (try Self.tags(input))["IFD0:Artist"] == nil, "\(r.stderr)")
            let output = try Self.export(input, MetadataPolicy(copyright: Self.copyright, creator: Self.creator), in: dir)
            let kept = Self.keptTags + Self.locationTags + Self.serialTags + ["IFD0:XResolution", "IFD0:YCbCrPositioning", "File:ExifByteOrder"]
            try Self.check(input: input, output: output, gone: [], kept: kept, byteOrder)
            Self.expectCredits(try Self.tags(output), copyright: Self.copyright, creator: Self.creator, in: ["IFD0"], byteOrder)
        }
    }

    @Test("a shorter Copyright is written over the old value in place: the block keeps its size")
    func copyrightInPlace() throws {
        let old = try #require(ImageMetadata().applying(MetadataPolicy(keep: .none, copyright: "Old Copyright, long", creator: "A")).exif)
        var exif = try #require(EXIF(old))
        exif.setText([(EXIF.copyrightTag, Array("© Zoë".utf8)), (EXIF.artistTag, Array("Bo".utf8))])
        #expect(exif.bytes.count == old.count)
        #expect(exif.text(tag: EXIF.copyrightTag) == Array("© Zoë".utf8) && exif.text(tag: EXIF.artistTag) == Array("Bo".utf8))
        #expect(!Self.contains(exif.bytes, Array("long".utf8)), "the rest of the old value is zeroed")
        #expect(EXIF(exif.bytes) != nil)
    }

    @Test(".copyright: only the credits go out (the photo's own, or the policy's), in EXIF IFD0, a new XMP packet and IPTC",
          Requirement.tool("exiftool"))
    func copyrightOnly() throws {
        try Self.withTagged("Little-endian") { dir, input in
            let allowed = Set([
                "IFD0:Orientation", "IFD0:XResolution", "IFD0:YResolution", "IFD0:ResolutionUnit", "IFD0:YCbCrPositioning",
                "IPTC:ApplicationRecordVersion", "IPTC:CodedCharacterSet", "File:CurrentIPTCDigest",
            ] + Self.creditTags)
            for policy in [MetadataPolicy(keep: .copyright), MetadataPolicy(keep: .copyright, copyright: Self.copyright, creator: Self.creator)] {
                let output = try Self.export(input, policy, in: dir)
                let what = "copyright \(policy.copyright ?? "(the photo's)")"
                try Self.check(input: input, output: output, gone: Self.locationTags + Self.serialTags + Self.keptTags, kept: [], what)
                let after = try Self.tags(output)
                let metadata = after.keys.filter {
                    $0.contains(":") && (!["ExifTool", "System", "File", "JFIF", "Composite"].contains($0.split(separator: ":")[0]) || allowed.contains($0))
                }
                #expect(Set(metadata).isSubset(of: allowed), "\(what): also \(Set(metadata).subtracting(allowed).sorted())")
                Self.expectCredits(after, copyright: policy.copyright ?? "Old Copyright", creator: policy.creator ?? "Old Artist", what)
            }
        }
    }

    @Test(".none: no EXIF, XMP or IPTC; with credits set, only those in EXIF IFD0 and XMP", Requirement.tool("exiftool"))
    func keepNone() throws {
        try Self.withTagged("Big-endian") { dir, input in
            let bare = try Self.tags(Self.export(input, MetadataPolicy(keep: .none), in: dir))
            let blocks = ["IFD0", "ExifIFD", "GPS", "IFD1", "IPTC"]
            #expect(!bare.keys.contains { blocks.contains(String($0.split(separator: ":")[0])) || $0.hasPrefix("XMP") }, "\(bare.keys.sorted())")
            let output = try Self.export(input, MetadataPolicy(keep: .none, copyright: Self.copyright, creator: Self.creator), in: dir)
            let gone = Self.locationTags + Self.serialTags + Self.keptTags + ["IPTC:CopyrightNotice", "IPTC:By-line"]
            try Self.check(input: input, output: output, gone: gone, kept: [], ".none")
            Self.expectCredits(try Self.tags(output), copyright: Self.copyright, creator: Self.creator, in: ["IFD0", "XMP-dc"], ".none")
        }
    }

    @Test("a PNG output: eXIf and the XMP iTXt carry the policy's result", Requirement.tool("exiftool"))
    func pngOutput() throws {
        try Self.withTagged("Little-endian") { dir, input in
            let policy = MetadataPolicy(stripLocation: true, stripSerials: true, copyright: Self.copyright, creator: Self.creator)
            let output = try Self.export(input, policy, in: dir, as: "png")
            try Self.check(input: input, output: output, gone: Self.locationTags + Self.serialTags,
                           kept: ["ExifIFD:DateTimeOriginal", "IFD0:Make", "ExifIFD:ExposureTime", "XMP-xmp:Rating"],
                           absent: try Self.coordinateBytes(input, bigEndian: false), "PNG")
            Self.expectCredits(try Self.tags(output), copyright: Self.copyright, creator: Self.creator, in: ["IFD0", "XMP-dc"], "PNG")
        }
    }

    @Test("a camera's maker notes: gone with stripSerials (the owner's name with them); kept, with the thumbnail, when IFD0 moves",
          Requirement.tool("exiftool"), Requirement.corpus)
    func makerNotes() throws {
        let input = try Requirement.corpusURL().appendingPathComponent("photos/pil_flower.jpg").path
        let dir = TestPaths.temporaryDirectory("policy")
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Self.tags(input)
        #expect(before["Canon:OwnerName"] == "Andreas Huggel" && before["IFD0:Copyright"] == nil)
        let stripped = try Self.export(input, MetadataPolicy(stripSerials: true), in: dir)
        try Self.check(input: input, output: stripped, gone: ["ExifIFD:MakerNoteCanon", "Canon:OwnerName", "Canon:CanonModelID"],
                       kept: ["ExifIFD:DateTimeOriginal", "IFD0:Make", "IFD0:Model", "ExifIFD:ExposureTime", "IFD1:ThumbnailLength"],
                       absent: [Array("Andreas Huggel".utf8)], "stripSerials")
        // Copyright is new to IFD0, which moves to the end of the block: the maker notes'
        // and the thumbnail's offsets must still hold.
        let credited = try Self.export(input, MetadataPolicy(copyright: Self.copyright), in: dir)
        try Self.check(input: input, output: credited, gone: [], kept: [
            "Canon:OwnerName", "Canon:CanonModelID", "Canon:CanonImageType", "ExifIFD:DateTimeOriginal", "IFD0:Make", "IFD1:ThumbnailLength",
        ], "IFD0 moved")
        #expect(try Self.tags(credited)["IFD0:Copyright"] == Self.copyright)
    }
}

/// The block editors on hand-made input: damage, the XMP forms exiftool does not write, IIM.
extension MetadataPolicyTests {
    /// Whether python3's XML parser reads `packet` as well-formed XML.
    static func isWellFormed(_ packet: [UInt8]) throws -> Bool {
        let dir = TestPaths.temporaryDirectory("xmp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("packet.xml")
        try Data(packet).write(to: file)
        let r = try ExternalTool.run(try Requirement.path("python3"), ["-c", "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])", file.path])
        return r.status == 0
    }

    @Test("a damaged EXIF, XMP or IPTC block is dropped under any policy but the identity; credits still go out")
    func damagedBlocks() throws {
        var m = ImageMetadata()
        m.exif = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0xFF, 0x7F]  // IFD0 claims 32767 entries
        m.xmp = Array("<x:xmpmeta><rdf:RDF><rdf:Description a=\"1\"></rdf:RDF></x:xmpmeta>".utf8)  // unclosed
        m.iptc = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 0x10, 0]  // size past the end
        m.icc = [1, 2, 3]
        #expect(EXIF(m.exif!) == nil)
        #expect(m.applying(MetadataPolicy()) == m)
        for policy in [MetadataPolicy(stripLocation: true), MetadataPolicy(stripSerials: true), MetadataPolicy(keep: .copyright), MetadataPolicy(keep: .none)] {
            let out = m.applying(policy)
            #expect(out.exif == nil && out.xmp == nil && out.iptc == nil, "\(policy)")
            #expect(out.icc == m.icc)
        }
        let credited = m.applying(MetadataPolicy(stripLocation: true, copyright: Self.copyright))
        let exif = try #require(credited.exif.flatMap(EXIF.init))
        #expect(exif.text(tag: EXIF.copyrightTag) == Array(Self.copyright.utf8))
        #expect(credited.xmp.map(XMP.credits)?.rights == Self.copyright)
        let iim = try #require(credited.iptc.flatMap(PhotoshopResources.resources(fromAPP13:)).flatMap(PhotoshopResources.iim(in:)))
        #expect(IIM.texts(IIM.copyrightNotice, in: IIM.dataSets(in: iim)) == [Self.copyright])
    }

    @Test("byte-flipped copies of real EXIF, XMP and IPTC never crash a policy, and what comes out reads back")
    func flippedBytes() throws {
        var base = try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_exif-72dpi-int.jpg")).info.metadata
        base.iptc = try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_iptc.jpg")).info.metadata.iptc
        base.xmp = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSAltitude="1/2"
               xmlns:dc="http://purl.org/dc/elements/1.1/"><exif:GPSLatitude>1,2N</exif:GPSLatitude>
              <dc:creator><rdf:Seq><rdf:li>A</rdf:li></rdf:Seq></dc:creator></rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        try #require(base.exif != nil && base.iptc != nil && base.xmp != nil)
        let policies = [
            MetadataPolicy(stripLocation: true, stripSerials: true), MetadataPolicy(keep: .copyright),
            MetadataPolicy(copyright: "c", creator: "a"), MetadataPolicy(keep: .none, copyright: "c"),
        ]
        var rng = SplitMix64(seed: 2026)
        func flipped(_ bytes: [UInt8]?) -> [UInt8]? {
            guard var bytes, !bytes.isEmpty else { return bytes }
            for _ in 0..<(1 + Int(rng.byte() % 8)) { bytes[Int(rng.next() % UInt64(bytes.count))] = rng.byte() }
            return bytes
        }
        for round in 0..<300 {
            var m = base
            (m.exif, m.xmp, m.iptc) = (flipped(m.exif), flipped(m.xmp), flipped(m.iptc))
            for policy in policies {
                let out = m.applying(policy)
                if let exif = out.exif { #expect(EXIF(exif) != nil, "round \(round), \(policy): EXIF") }
                if let xmp = out.xmp { #expect(XMP.removing([], from: xmp) != nil, "round \(round), \(policy): XMP") }
                if let iptc = out.iptc {
                    #expect(PhotoshopResources.resources(fromAPP13: iptc).flatMap(PhotoshopResources.blocks(in:)) != nil, "round \(round), \(policy): IPTC")
                }
            }
        }
    }

    @Test("XMP: properties removed in attribute and element form under any prefix; credits replaced; the packet stays well-formed",
          Requirement.tool("python3"))
    func xmpForms() throws {
        let packet = """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <r:Description r:about="" xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:ps="http://ns.adobe.com/photoshop/1.0/"
                e:GPSLatitude='12,34.946466N' e:ExposureTime="1/250" ps:City="Reykjavik" e:GPSAltitude="24690/20"
                xmlns:purl="http://purl.org/dc/elements/1.1/">
               <e:GPSLongitude>98,45.925926W</e:GPSLongitude>
               <e:GPSDestination r:parseType="Resource"><e:GPSLatitude>1,2N</e:GPSLatitude></e:GPSDestination>
               <!-- <e:GPSLatitude>in a comment</e:GPSLatitude> -->
               <e:Flash r:parseType="Resource"><e:Fired>False</e:Fired></e:Flash>
               <purl:creator><r:Seq><r:li>Old &amp; Artist</r:li><r:li>Second</r:li></r:Seq></purl:creator>
               <purl:rights><r:Alt><r:li xml:lang="en">English</r:li><r:li xml:lang="x-default">Old &#169; Rights</r:li></r:Alt></purl:rights>
              </r:Description>
              <r:Description r:about="" xmlns:exif="http://example.com/not-exif/" exif:GPSLatitude="kept: another namespace"/>
             </r:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
        let bytes = Array(packet.utf8)
        #expect(try Self.isWellFormed(bytes))
        #expect(XMP.credits(in: bytes).rights == "Old © Rights" && XMP.credits(in: bytes).creators == ["Old & Artist", "Second"])
        let stripped = try #require(XMP.removing(XMP.locationProperties, from: bytes))
        let text = String(decoding: stripped, as: UTF8.self)
        #expect(try Self.isWellFormed(stripped))
        for gone in ["12,34.946466N", "98,45.925926W", "Reykjavik", "24690/20", "1,2N", "GPSDestination"] { #expect(!text.contains(gone), "\(gone)") }
        for kept in ["e:ExposureTime=\"1/250\"", "<e:Fired>False</e:Fired>", "in a comment", "kept: another namespace", "Old &amp; Artist"] {
            #expect(text.contains(kept), "\(kept)")
        }
        let credited = try #require(XMP.settingCredits(stripped, rights: Self.copyright, creators: [Self.creator]))
        #expect(try Self.isWellFormed(credited))
        #expect(XMP.credits(in: credited).rights == Self.copyright && XMP.credits(in: credited).creators == [Self.creator])
        #expect(!String(decoding: credited, as: UTF8.self).contains("Old"), "the old credits are replaced, not added to")
        // A packet without the dc namespace and with an empty description gets both.
        let bare = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:dc="urn:not-dc" dc:x="1"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        let added = try #require(XMP.settingCredits(bare, rights: "a < b", creators: nil))
        #expect(try Self.isWellFormed(added))
        #expect(XMP.credits(in: added).rights == "a < b" && String(decoding: added, as: UTF8.self).contains("dc:x=\"1\""))
        #expect(try Self.isWellFormed(XMP.minimalPacket(rights: Self.creator, creators: [Self.copyright, "&"])))
        #expect(XMP.removing(XMP.locationProperties, from: Array("<a><b></a></b>".utf8)) == nil)
    }

    @Test("IIM: location datasets filtered, credits replaced with 1:90 UTF-8 and Latin-1 text converted; long values use the extended length")
    func iimDataSets() throws {
        let latin1City: [UInt8] = [0x4D, 0xFC, 0x6E, 0x63, 0x68, 0x65, 0x6E]  // "München" in Latin-1
        let sets = [
            IIM.DataSet(record: 2, number: 0, value: [0, 4]), IIM.DataSet(record: 2, number: 25, value: Array("harbour".utf8)),
            IIM.DataSet(record: 2, number: 80, value: Array("Old".utf8)), IIM.DataSet(record: 2, number: 90, value: latin1City),
            IIM.DataSet(record: 2, number: 101, value: Array("Iceland".utf8)),
            IIM.DataSet(record: 2, number: 120, value: [UInt8](repeating: 0x61, count: 40_000)), IIM.DataSet(record: 2, number: 202, value: [0xFF, 0xD8]),
        ]
        let bytes = IIM.bytes(of: sets)
        #expect(IIM.dataSets(in: bytes) == sets)
        #expect(IIM.dataSets(in: bytes + [0, 0, 0]) == sets, "padding after the last dataset")
        let credited = IIM.settingCredits(sets, copyright: Self.copyright, creators: [Self.creator])
        #expect(credited.first == IIM.DataSet(record: 1, number: 90, value: IIM.utf8Declaration))
        #expect(IIM.texts(IIM.byline, in: credited) == [Self.creator] && IIM.texts(IIM.copyrightNotice, in: credited) == [Self.copyright])
        #expect(IIM.texts(90, in: credited) == ["München"] && credited.contains { $0.number == 202 && $0.value == [0xFF, 0xD8] })
        let long = String(repeating: "Å", count: 20)  // 40 bytes
        let cut = IIM.settingCredits([], copyright: nil, creators: [long])
        #expect(IIM.texts(IIM.byline, in: cut) == [String(repeating: "Å", count: 16)], "cut to 32 bytes on a character boundary")
        let numbers = credited.filter { $0.record == 2 }.map(\.number)
        #expect(numbers == numbers.sorted(), "\(numbers)")
        let policy = MetadataPolicy(stripLocation: true)
        var m = ImageMetadata()
        m.iptc = PhotoshopResources.app13(resources: PhotoshopResources.bytes(of: [
            PhotoshopResources.Block(id: 0x0404, data: bytes), PhotoshopResources.Block(id: 0x0425, data: [UInt8](repeating: 7, count: 16)),
            PhotoshopResources.Block(id: 0x03ED, name: Array("res".utf8), data: [1, 2, 3]),
        ]))
        let out = try #require(m.applying(policy).iptc.flatMap(PhotoshopResources.resources(fromAPP13:)).flatMap(PhotoshopResources.blocks(in:)))
        #expect(out.map(\.id) == [0x0404, 0x03ED], "the IIM digest goes with the change, other resources stay")
        #expect(IIM.dataSets(in: out[0].data).map(\.number) == [0, 25, 80, 120, 202])
    }
}
