import RecipeCodecs
import RecipeCore
import RecipeHistory

/// What a photographer marked on a photo and what its camera recorded, for `apply --select`:
/// rating, colour label, rejection and keywords from its XMP (a sidecar `IMG_0001.xmp` or
/// `IMG_0001.CR2.xmp`, darktable's or Lightroom's, else the XMP the photo embeds), and the date,
/// camera and lens from the XMP or else the photo's EXIF.
///
/// ```swift
/// let facts = PhotoFacts.read("shoot/IMG_0001.CR2")   // rating 4, label "Red", keywords ["wedding"]
/// ```
struct PhotoFacts: Sendable, Equatable {
    /// xmp:Rating: 0 when not rated, -1 when rejected.
    var rating = 0
    var label = ""
    var keywords: [String] = []
    /// ISO 8601 (`2024-06-01T10:00:00`), or "" when unknown.
    var date = ""
    var camera = ""
    var lens = ""

    /// How much of a photo is read for its embedded XMP (a JPEG's APP1 and a TIFF's tag 700
    /// come early).
    static let embeddedPrefix = 1 << 20

    /// `exif`: whether the date, camera and lens are wanted (then EXIF fills what XMP lacks).
    static func read(_ photo: String, exif wanted: Bool = true) -> PhotoFacts {
        var facts = PhotoFacts()
        var documents: [CameraRawXMP.Document] = []
        let stem = Paths.join(Paths.folder(of: photo), Paths.stem(of: photo))
        for p in [photo + ".xmp", photo + ".XMP", stem + ".xmp", stem + ".XMP"] where Paths.isFile(p) {
            if let bytes = try? Paths.readBytes(p, limit: CameraRawXMP.maxBytes), let d = try? CameraRawXMP.parse(bytes, path: p) { documents.append(d) }
        }
        if let head = try? InputFile.prefix(photo, count: embeddedPrefix), let embedded = try? CameraRawSettings.embeddedDocuments(in: head, path: photo) {
            documents += embedded
        }
        func text(_ key: String) -> String? { documents.lazy.compactMap { $0[key]?.value.text }.first { !$0.isEmpty } }
        func list(_ key: String) -> [String] { documents.flatMap { $0[key]?.value.items?.compactMap(\.text) ?? [] } }
        facts.rating = text("xmp:Rating").flatMap { Double($0) }.map { Int($0.rounded()) } ?? 0
        facts.label = text("xmp:Label") ?? ""
        facts.keywords = Array(Set(list("dc:subject") + list("lr:hierarchicalSubject").map { String($0.split(separator: "|").last ?? "") })).sorted()
        facts.date = text("exif:DateTimeOriginal") ?? text("photoshop:DateCreated") ?? text("xmp:CreateDate") ?? ""
        facts.camera = text("tiff:Model") ?? ""
        facts.lens = text("exifEX:LensModel") ?? text("aux:Lens") ?? ""
        if wanted, facts.date.isEmpty || facts.camera.isEmpty || facts.lens.isEmpty, let exif = (try? ImageDecoders.open(photo))?.info.metadata.exif.flatMap({ EXIF($0) }) {
            if facts.date.isEmpty, let d = exif.string(0x9003, in: .exif) ?? exif.string(0x0132, in: .ifd0) {
                // EXIF writes 2024:06:01 10:00:00.
                facts.date = String(d.prefix(10).map { $0 == ":" ? "-" : $0 }) + (d.count > 11 ? "T" + d.dropFirst(11) : "")
            }
            if facts.camera.isEmpty { facts.camera = exif.string(0x0110, in: .ifd0) ?? "" }
            if facts.lens.isEmpty { facts.lens = exif.string(0xA434, in: .exif) ?? "" }
        }
        return facts
    }

    /// One line for `--dry-run`: what the selection saw.
    var summary: String {
        var parts = ["rating \(rating)"]
        if !label.isEmpty { parts.append("label \(label)") }
        if !keywords.isEmpty { parts.append("keywords \(keywords.joined(separator: ", "))") }
        if !date.isEmpty { parts.append("date \(date)") }
        if !camera.isEmpty { parts.append("camera \(camera)") }
        if !lens.isEmpty { parts.append("lens \(lens)") }
        return parts.joined(separator: "; ")
    }
}
