import ArgumentParser
import RecipeBatch
import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeSession

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a photo: size, format, colour model, bit depth, orientation, metadata.",
        discussion: "Reads the header and metadata only; no pixels are decoded, unless --auto asks for the auto values.")

    @Argument(help: "The photos to describe.", completion: .file())
    var photos: [String]

    @Flag(help: "One JSON object per photo, one per line.")
    var json = false

    @Flag(help: "Also measure what `auto` comes to on each photo (white balance, exposure, levels; decodes a reduced image).")
    var auto = false

    func run() throws {
        var failed = false
        for photo in photos {
            do {
                let decoder = try ImageDecoders.open(photo)
                let report = InfoReport(path: photo, info: decoder.info)
                var fields = report.fields
                if auto {
                    do {
                        fields += try InfoReport.autoFields(photo)
                    } catch let error as RenderPlanError {
                        Console.error("\(photo): auto values: \(error.description)")
                        failed = true
                    } catch {
                        Console.error("\(photo): auto values: \(error)")
                        failed = true
                    }
                }
                if json {
                    print(JSONLine.object(fields.map { ($0.key, $0.value) }))
                } else {
                    print(photo)
                    for f in fields.dropFirst() { print("  \(f.key): \(f.value.text)") }
                }
                Console.warnings(report.warnings + decoder.warnings)
            } catch {
                Console.error(error.description)
                failed = true
            }
        }
        if failed { throw CommandFailure.partial }
    }
}

/// The facts `recipe info` prints, in order.
struct InfoReport {
    var fields: [(key: String, value: JSONLine.Value)] = []
    /// Problems with the photo's colour information.
    var warnings: [ImageWarning] = []

    init(path: String, info: ImageInfo) {
        let m = info.metadata
        let upright = info.uprightSize
        fields.append(("file", .string(path)))
        fields.append(("format", .string(info.format.rawValue)))
        fields.append(("width", .int(upright.width)))
        fields.append(("height", .int(upright.height)))
        let mp = (Double(info.width * info.height) / 1e5).rounded() / 10
        fields.append(("megapixels", .number(mp)))
        if info.orientation.transposes { fields.append(("stored size", .string("\(info.width)×\(info.height)"))) }
        fields.append(("colour model", .string("\(info.fileColorSpace) (decoded as \(info.colorModel.rawValue))")))
        // What the pixels' colours are (PhotoColor's reading): the profile's description, class
        // and colour model, and whether it holds colours outside sRGB.
        let (profile, name, colorWarnings) = PhotoColor.sourceProfile(photo: path, info: info)
        warnings = colorWarnings
        if info.raw != nil, let color = try? PhotoColor(photo: path, info: info) {
            // A raw's colours are its camera's, through the camera matrix of the default develop.
            fields.append(("colour space", .string(color.sourceName)))
        } else if let icc = m.icc, let embedded = try? ColorProfile(icc: icc), colorWarnings.isEmpty {
            let gamut = embedded.colorModel == .rgb ? (embedded.isWideGamut ? ", wide gamut" : embedded.isSRGBEquivalent ? ", sRGB" : "") : ""
            fields.append(("colour space", .string("\(name) (ICC v\(embedded.version) \(embedded.deviceClass) profile, \(embedded.colorModel.rawValue)\(gamut))")))
        } else {
            let gamut = profile.map { $0.isWideGamut ? " (wide gamut)" : "" } ?? ""
            fields.append(("colour space", .string(name + gamut)))
        }
        fields.append(("bit depth", .int(info.bitDepth)))
        fields.append(("progressive", .bool(info.progressive)))
        fields.append(("orientation", .string(orientationText(info.orientation))))
        for d in info.details { fields.append((d.label, .string(d.value))) }
        var blocks: [String] = []
        if let exif = m.exif { blocks.append("EXIF (\(exif.count) bytes)") }
        if let icc = m.icc { blocks.append("ICC (\(ICCProfile.colorSpace(icc) ?? "?"), \(icc.count) bytes)") }
        if let xmp = m.xmp { blocks.append("XMP (\(xmp.count) bytes\(m.extendedXMP.isEmpty ? "" : ", +\(m.extendedXMP.count) extended"))") }
        if let iptc = m.iptc { blocks.append("IPTC (\(iptc.count) bytes)") }
        if !m.comments.isEmpty { blocks.append("comment (\(m.comments.count))") }
        if !m.pngText.isEmpty { blocks.append("text chunks (\(m.pngText.map(\.keyword).joined(separator: ", ")))") }
        fields.append(("metadata", .list(blocks)))
        fields += InfoReport.lensFields(info)
    }
}

private func orientationText(_ o: Orientation) -> String {
    switch o {
    case .up: "1 (upright)"
    case .upMirrored: "2 (mirrored)"
    case .down: "3 (rotated 180°)"
    case .downMirrored: "4 (mirrored, rotated 180°)"
    case .leftMirrored: "5 (mirrored, rotated 90° counter-clockwise)"
    case .right: "6 (rotated 90° clockwise to view)"
    case .rightMirrored: "7 (mirrored, rotated 90° clockwise)"
    case .left: "8 (rotated 90° counter-clockwise to view)"
    }
}
