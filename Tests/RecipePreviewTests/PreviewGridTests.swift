import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport
@testable import RecipePreview

/// The folder grid draws a raw from its embedded JPEG preview when that is large enough (the
/// camera's rendering, decoded in milliseconds), and from the develop otherwise; the photo view
/// always develops.
@Suite("preview grid")
struct PreviewGridTests {
    /// Mean red minus mean blue of a JPEG's pixels, in 8-bit codes.
    static func redMinusBlue(_ jpeg: [UInt8], in folder: URL) throws -> Double {
        let file = folder.appendingPathComponent("t-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: file)
        let decoder = try ImageDecoders.open(file.path)
        try decoder.start(scaleDenominator: 1)
        let strip = PixelBuffer(width: decoder.width, rowCapacity: 16, format: decoder.format)
        var red = 0.0, blue = 0.0, n = 0.0
        while true {
            let rows = try decoder.readRows(into: strip)
            if rows == 0 { break }
            for r in 0..<rows {
                let p = strip.row(r).assumingMemoryBound(to: UInt8.self)
                for x in 0..<decoder.width {
                    red += Double(p[3 * x])
                    blue += Double(p[3 * x + 2])
                    n += 1
                }
            }
        }
        return (red - blue) / n
    }

    @Test("a raw with a large enough JPEG preview is drawn from it in the grid; without one, or opened, it develops")
    func gridFromEmbeddedPreview() async throws {
        let folder = TestPaths.temporaryDirectory("preview-grid-raw")
        defer { try? FileManager.default.removeItem(at: folder) }
        let shoot = folder.appendingPathComponent("shoot"), scratch = folder.appendingPathComponent("scratch")
        for dir in [shoot, scratch] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
        // A tungsten white balance on a daylight photo turns the develop blue; the camera's
        // preview (made from the photo itself) knows nothing of it.
        let recipe = folder.appendingPathComponent("look.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - develop: {white-balance: tungsten}\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let a = shoot.appendingPathComponent("a.dng").path, b = shoot.appendingPathComponent("b.dng").path
        try FileManager.default.copyItem(atPath: TestPaths.fixture("raw/kodim03-crop-preview.dng"), toPath: a)
        try FileManager.default.copyItem(atPath: TestPaths.fixture("raw/kodim03-crop.dng"), toPath: b)
        let session = PreviewSession(recipePath: recipe, photos: [.init(path: a, name: "a.dng"), .init(path: b, name: "b.dng")],
                                     folderMode: true, folder: shoot.path, size: .longEdge(400), scratch: scratch.path)
        await session.recipeMayHaveChanged()

        var shift: [String: Double] = [:]
        for (key, index, picture) in [("grid a", 0, PreviewPicture.thumb), ("grid b", 1, .thumb), ("view a", 0, .render)] {
            guard case .image(let image) = await session.picture(picture, index) else {
                Issue.record("\(key): no picture")
                return
            }
            if picture == .thumb { #expect(image.width == 240 && image.height == 180, "\(key): upright, 240 px long edge") }
            shift[key] = try Self.redMinusBlue(image.jpeg, in: scratch)
        }
        // The photo's own red minus blue is about 20 codes; tungsten's white balance takes about 70 off.
        let gridA = try #require(shift["grid a"]), gridB = try #require(shift["grid b"]), viewA = try #require(shift["view a"])
        #expect(gridA > viewA + 40, "grid a is the camera's preview, not the tungsten develop (\(gridA) vs \(viewA))")
        #expect(abs(gridB - viewA) < 8, "without a preview the grid develops as the view does (\(gridB) vs \(viewA))")
    }
}
