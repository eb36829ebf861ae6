import Foundation
import RecipeHistory
import Testing
import TestSupport

/// Camera Raw settings read from XMP and translated: the attribute and element forms, lists and
/// structures, embedded packets, malformed and hostile XMP, and how many keys translate.
@Suite("Lightroom: reading Camera Raw XMP and translating it")
struct LightroomXMPTests {
    static func xmp(attributes: String = "", elements: String = "") -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/"
            xmlns:tiff="http://ns.adobe.com/tiff/1.0/" crs:ProcessVersion="11.0" \(attributes)>
           \(elements)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    static func settings(_ text: String, path: String = "test.xmp") throws -> CameraRawSettings {
        try CameraRawSettings.parse(Array(text.utf8), path: path)
    }

    static func translate(_ text: String, _ options: LightroomTranslation.Options = .init()) throws -> LightroomTranslation {
        try LightroomTranslation(settings(text), options: options)
    }

    @Test("the attribute form and the element form translate alike")
    func attributeAndElementForms() throws {
        let a = try Self.translate(Self.xmp(attributes: #"crs:Exposure2012="+0.50" crs:Vibrance="20" crs:HueAdjustmentBlue="-10""#))
        let e = try Self.translate(Self.xmp(elements: """
            <crs:Exposure2012>+0.50</crs:Exposure2012><crs:Vibrance>20</crs:Vibrance>
            <crs:HueAdjustmentBlue>-10</crs:HueAdjustmentBlue>
            """))
        #expect(a.stagesYAML == e.stagesYAML)
        #expect(a.stages.map(\.operation) == ["exposure: 0.5", "vibrance: 0.2", "color-mixer: {blue-hue: -3}"])
    }

    @Test("a point curve in an rdf:Seq becomes a curve stage scaled to 0…1; the identity none")
    func toneCurve() throws {
        func seq(_ points: [String]) -> String { "<rdf:Seq>" + points.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:Seq>" }
        let t = try Self.translate(Self.xmp(elements: """
            <crs:ToneCurvePV2012>\(seq(["0, 0", "64, 51", "191, 204", "255, 255"]))</crs:ToneCurvePV2012>
            <crs:ToneCurvePV2012Red>\(seq(["0, 0", "255, 255"]))</crs:ToneCurvePV2012Red>
            <crs:ToneCurvePV2012Blue>\(seq(["0, 10", "255, 245"]))</crs:ToneCurvePV2012Blue>
            """))
        #expect(t.stages.map(\.operation) == ["curve: {points: [[0, 0], [0.251, 0.2], [0.749, 0.8], [1, 1]]}",
                                              "curve: {points: [[0, 0.0392], [1, 0.9608]], channel: b}"])
        #expect(t.report.first { $0.key == "ToneCurvePV2012Red" }?.outcome == .neutral)
    }

    @Test("graduated and radial filters (structures in lists) become masked stages")
    func localCorrections() throws {
        let t = try Self.translate(Self.xmp(elements: """
            <crs:GradientBasedCorrections><rdf:Seq><rdf:li><rdf:Description crs:What="Correction" crs:CorrectionAmount="1.000000"
              crs:CorrectionActive="true" crs:LocalExposure2012="-0.250000" crs:LocalSaturation="0.200000" crs:LocalDehaze="0.1"
              crs:LocalCurveRefineSaturation="100" crs:LocalToningHue="180" crs:CorrectionName="sky">
              <crs:CorrectionMasks><rdf:Seq><rdf:li crs:What="Mask/Gradient" crs:MaskValue="0.5" crs:ZeroX="0.5" crs:ZeroY="0.6"
                crs:FullX="0.5" crs:FullY="0.1"/></rdf:Seq></crs:CorrectionMasks>
            </rdf:Description></rdf:li></rdf:Seq></crs:GradientBasedCorrections>
            <crs:CircularGradientBasedCorrections><rdf:Seq><rdf:li rdf:parseType="Resource">
              <crs:What>Correction</crs:What><crs:CorrectionAmount>1</crs:CorrectionAmount><crs:LocalClarity2012>0.3</crs:LocalClarity2012>
              <crs:CorrectionMasks><rdf:Seq><rdf:li crs:What="Mask/CircularGradient" crs:Top="0.25" crs:Left="0.25" crs:Bottom="0.75"
                crs:Right="0.75" crs:Feather="40" crs:Flipped="true"/></rdf:Seq></crs:CorrectionMasks>
            </rdf:li></rdf:Seq></crs:CircularGradientBasedCorrections>
            """), .init(storedAspect: 1))
        #expect(t.stages.map(\.id) == ["graduated-1-exposure", "graduated-1-saturation", "radial-1-clarity"])
        #expect(t.stages[0].operation == "exposure: -1")
        #expect(t.stages[0].mask == "{gradient: {from: [0.5, 0.1], to: [0.5, 0.6], amount: 0.5}}")
        // Radius: half-axes 0.25 of a square over its half-diagonal √2/2.
        #expect(t.stages[2].mask == "{radial: {center: [0.5, 0.5], radius: 0.3536, feather: 0.4}}")
        guard case .untranslated(let why)? = t.report.first(where: { $0.key == "GradientBasedCorrections" })?.outcome else {
            Issue.record("LocalDehaze is not translated, so the key is reported as partly translated")
            return
        }
        #expect(why.contains("LocalDehaze") && why.contains("LocalToningHue") && !why.contains("LocalCurveRefineSaturation"), "\(why)")
        #expect(t.report.first { $0.key == "CircularGradientBasedCorrections" }?.outcome == .translated)
    }

    @Test("white balance: kelvin for a raw in the develop, offsets for a rendered photo")
    func whiteBalance() throws {
        let raw = try Self.translate(Self.xmp(attributes: #"crs:WhiteBalance="Custom" crs:Temperature="4300" crs:Tint="+12""#),
                                     .init(photo: .raw, rawLookStages: ["vibrance: 0.1"]))
        #expect(raw.stages.map(\.operation) == ["develop: {temp: 4300, tint: 12}", "vibrance: 0.1"])
        let asShot = try Self.translate(Self.xmp(attributes: #"crs:WhiteBalance="As Shot" crs:Temperature="5150" crs:Tint="+3""#), .init(photo: .raw))
        #expect(asShot.stages.isEmpty)
        #expect(asShot.counts.untranslated == 0)
        let rendered = try Self.translate(Self.xmp(attributes: #"crs:IncrementalTemperature="+100" crs:IncrementalTint="-20""#), .init(photo: .rendered))
        #expect(rendered.stages.map(\.operation) == ["white-balance: {temp: 10656, tint: -20}"])
    }

    @Test("tiff:Orientation: the turn from the photo's EXIF orientation to Lightroom's")
    func orientation() throws {
        for (xmp, exif, steps) in [(6, 1, ["rotate: 90"]), (1, 6, ["rotate: 270"]), (6, 6, []), (8, 6, ["rotate: 180"]),
                                   (2, 1, ["flip: horizontal"]), (5, 1, ["rotate: 90", "flip: horizontal"]), (3, 8, ["rotate: 270"])] {
            let t = try Self.translate(Self.xmp(attributes: "tiff:Orientation=\"\(xmp)\""), .init(photo: .rendered, exifOrientation: exif))
            #expect(t.stages.map(\.operation) == steps, "XMP \(xmp) over EXIF \(exif)")
        }
    }

    @Test("a value that is not a number, or outside Camera Raw's range, names the file, the key and its line")
    func malformedValues() throws {
        for (attribute, words) in [(#"crs:Exposure2012="bright""#, ["Exposure2012", "not a number"]),
                                   (#"crs:Contrast2012="+250""#, ["Contrast2012", "outside Camera Raw's range -100…100"]),
                                   (#"crs:Sharpness="-5""#, ["Sharpness", "0…150"])] {
            let error = #expect(throws: HistoryError.self) { try Self.translate(Self.xmp(attributes: attribute)) }
            #expect(error?.file == "test.xmp")
            for w in words { #expect(error?.message.contains(w) == true, "\(error?.message ?? "")") }
            #expect(error?.message.contains("line 4") == true, "\(error?.message ?? "")")
        }
        let curve = #expect(throws: HistoryError.self) {
            try Self.translate(Self.xmp(elements: "<crs:ToneCurvePV2012><rdf:Seq><rdf:li>128, 9</rdf:li><rdf:li>12, 40</rdf:li></rdf:Seq></crs:ToneCurvePV2012>"))
        }
        #expect(curve?.message.contains("ToneCurvePV2012") == true)
        let xml = #expect(throws: HistoryError.self) { try Self.settings("<x:xmpmeta><rdf:RDF>") }
        #expect(xml?.message.contains("not a readable XMP file") == true)
    }

    @Test("XML bombs are refused: entities, deep nesting, size")
    func bombs() throws {
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" crs:Name="&d;&d;&d;"/></rdf:RDF></x:xmpmeta>
            """
        let entity = #expect(throws: HistoryError.self) { try Self.settings(laughs) }
        #expect(entity?.message.contains("document type declaration") == true)
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        let start = Date()
        let nesting = #expect(throws: HistoryError.self) { try Self.settings(deep) }
        #expect(nesting?.message.contains("nested deeper than 64") == true, "\(nesting?.message ?? "")")
        #expect(Date().timeIntervalSince(start) < 2)
        let big = [UInt8](repeating: 0x20, count: CameraRawXMP.maxBytes + 1)
        #expect(throws: HistoryError.self) { try CameraRawSettings.parse(big, path: "big.xmp") }
    }

    @Test("XMP embedded in a JPEG (APP1, with extended XMP) and a TIFF (tag 700) is found")
    func embedded() throws {
        let dir = TestPaths.temporaryDirectory("lightroom-embedded").path
        let packet = Array(Self.xmp(attributes: #"crs:Exposure2012="+1.00""#).utf8)
        // A JPEG: SOI, APP1 (XMP), EOI.
        var jpeg: [UInt8] = [0xFF, 0xD8]
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + packet
        jpeg += [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload + [0xFF, 0xD9]
        FileManager.default.createFile(atPath: dir + "/a.jpg", contents: Data(jpeg))
        #expect(try CameraRawSettings.read(dir + "/a.jpg").number("Exposure2012") == 1)
        // A little-endian TIFF: header, IFD0 with one entry (700, BYTE, count, offset), the packet
        // (an RDF without the x:xmpmeta wrapper, as XMP allows: only tag 700 leads to it).
        let rdf = Array(Self.xmp(attributes: #"crs:Exposure2012="+1.00""#).split(separator: "\n").dropFirst().dropLast().joined(separator: "\n").utf8)
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8) + le16(1) + le16(700) + le16(1) + le32(rdf.count) + le32(26) + le32(0) + rdf
            + [UInt8](repeating: 0, count: 9 << 20)   // image data: a photo past the XMP file limit is still read
        FileManager.default.createFile(atPath: dir + "/a.tif", contents: Data(tiff))
        #expect(try CameraRawSettings.read(dir + "/a.tif").number("Exposure2012") == 1)
        FileManager.default.createFile(atPath: dir + "/none.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xD9]))
        #expect(throws: HistoryError.self) { try CameraRawSettings.read(dir + "/none.jpg") }
    }

    @Test("XMP that exiftool writes into a HEIC and a JPEG is read back", Requirement.tool("exiftool", "heif-enc"))
    func embeddedByExiftool() throws {
        let dir = TestPaths.temporaryDirectory("lightroom-exiftool").path
        let heic = dir + "/a.heic", jpeg = dir + "/a.jpg"
        #expect(try ExternalTool.run(try Requirement.path("heif-enc"), ["-q", "80", "-o", heic, TestPaths.samples.appendingPathComponent("kodim03.png").path]).status == 0)
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: jpeg)
        for photo in [heic, jpeg] {
            let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-q", "-overwrite_original", "-XMP-crs:ProcessVersion=11.0",
                                                                          "-XMP-crs:Exposure2012=+1.25", "-XMP-crs:Vibrance=-20", photo])
            #expect(r.status == 0, "\(r.stderr)")
            let settings = try CameraRawSettings.read(photo)
            #expect(try settings.number("Exposure2012") == 1.25 && settings.number("Vibrance") == -20, "\(photo)")
        }
    }

    /// Every key the tables of docs/lightroom.md translate, set away from its neutral value.
    static let everyKey: String = {
        var a = [#"crs:Exposure2012="+0.5""#, #"crs:WhiteBalance="Custom""#, #"crs:Temperature="5000""#, #"crs:Tint="+5""#,
                 #"crs:HasCrop="True""#, #"crs:CropTop="0.1""#, #"crs:CropLeft="0.1""#, #"crs:CropBottom="0.9""#, #"crs:CropRight="0.9""#,
                 #"crs:CropAngle="2""#, #"crs:LensProfileEnable="1""#, #"crs:AutoLateralCA="1""#, #"crs:LensProfileDistortionScale="100""#,
                 #"crs:LensProfileVignettingScale="0""#, #"crs:ConvertToGrayscale="True""#, #"crs:ColorGradeBlending="60""#,
                 #"crs:ColorGradeBalance="10""#, #"crs:SplitToningBalance="10""#, #"crs:SplitToningShadowHue="200""#,
                 #"crs:SplitToningShadowSaturation="20""#, #"crs:SplitToningHighlightHue="40""#, #"crs:SplitToningHighlightSaturation="20""#,
                 #"crs:Sharpness="40""#, #"crs:SharpenRadius="1.2""#, #"crs:SharpenDetail="30""#, #"crs:SharpenEdgeMasking="10""#,
                 #"crs:PostCropVignetteAmount="-20""#, #"crs:PostCropVignetteMidpoint="40""#, #"crs:PostCropVignetteFeather="60""#,
                 #"crs:ParametricShadowSplit="20""#, #"crs:ParametricMidtoneSplit="50""#, #"crs:ParametricHighlightSplit="80""#]
        for key in ["Contrast2012", "Highlights2012", "Shadows2012", "Whites2012", "Blacks2012", "Vibrance", "Saturation", "Clarity2012",
                    "Texture", "ParametricShadows", "ParametricDarks", "ParametricLights", "ParametricHighlights"] {
            a.append("crs:\(key)=\"+10\"")
        }
        for band in ["Red", "Orange", "Yellow", "Green", "Aqua", "Blue", "Purple", "Magenta"] {
            for kind in ["Hue", "Saturation", "Luminance"] { a.append("crs:\(kind)Adjustment\(band)=\"-10\"") }
            a.append("crs:GrayMixer\(band)=\"+10\"")
        }
        for zone in ["Shadow", "Midtone", "Highlight", "Global"] {
            a += ["crs:ColorGrade\(zone)Hue=\"30\"", "crs:ColorGrade\(zone)Sat=\"20\"", "crs:ColorGrade\(zone)Lum=\"5\""]
        }
        func seq(_ p: String) -> String { "<rdf:Seq><rdf:li>0, 0</rdf:li><rdf:li>\(p)</rdf:li><rdf:li>255, 255</rdf:li></rdf:Seq>" }
        let curves = ["", "Red", "Green", "Blue"].map { "<crs:ToneCurvePV2012\($0)>\(seq("128, 140"))</crs:ToneCurvePV2012\($0)>" }.joined()
        let local = """
            <crs:GradientBasedCorrections><rdf:Seq><rdf:li crs:What="Correction" crs:LocalExposure2012="0.1">
            <crs:CorrectionMasks><rdf:Seq><rdf:li crs:What="Mask/Gradient" crs:ZeroX="0.5" crs:ZeroY="0.5" crs:FullX="0.5" crs:FullY="0"/></rdf:Seq>
            </crs:CorrectionMasks></rdf:li></rdf:Seq></crs:GradientBasedCorrections>
            <crs:CircularGradientBasedCorrections><rdf:Seq><rdf:li crs:What="Correction" crs:LocalSaturation="0.1">
            <crs:CorrectionMasks><rdf:Seq><rdf:li crs:What="Mask/CircularGradient" crs:Top="0.2" crs:Left="0.2" crs:Bottom="0.8" crs:Right="0.8"/>
            </rdf:Seq></crs:CorrectionMasks></rdf:li></rdf:Seq></crs:CircularGradientBasedCorrections>
            """
        return xmp(attributes: a.joined(separator: " ") + #" crs:IncrementalTemperature="+10" crs:IncrementalTint="+5""#, elements: curves + local)
    }()

    @Test("at least 80 crs: keys translate into stages, and the result is a recipe that checks")
    func keyCount() throws {
        let t = try Self.translate(Self.everyKey, .init(photo: .raw))
        let translated = t.report.filter { $0.outcome == .translated && !$0.key.contains(":") }.map(\.key)
        print("Lightroom keys translated into stages: \(translated.count) (of \(t.report.count) set)")
        #expect(translated.count >= 80)
        let text = try LightroomImport.lookRecipe(t, path: "every-key.recipe.yaml")
        #expect(text.contains("stages:"))
    }
}
