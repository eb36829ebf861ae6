import Foundation
import Testing
import TestSupport

/// Crops, rotations and flips placed pixel by pixel against libvips on small photos whose spare
/// width or height is odd as well as even: an anchor or a turn off by one pixel changes every
/// pixel compared.
extension RecipeRenderTests {
    /// Sizes cut from the sample photo: wide and tall, with an odd and an even spare side for a
    /// square crop (41, 40).
    static let oracleSizes: [(Int, Int)] = [(101, 60), (100, 60), (60, 101), (60, 100)]

    /// `vips crop` of the sample photo at (13, 29) to `size`, as a PNG in `dir`.
    func cutPhoto(_ size: (Int, Int), vips: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("in-\(size.0)x\(size.1).png").path
        try runAll(vips, [["crop", Self.photo, path, "13", "29", "\(size.0)", "\(size.1)"]])
        return path
    }

    /// `recipe render photo` with `stages` to a PNG in `dir`.
    func renderPhoto(_ photo: String, _ stages: String, in dir: URL) throws -> String {
        let recipePath = dir.appendingPathComponent("o-\(UUID().uuidString).recipe.yaml").path
        try ("format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages).write(toFile: recipePath, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out-\(UUID().uuidString).png").path
        let r = try recipe(["render", photo, "--recipe", recipePath, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// Our anchors and the compass points of `vips gravity`, which crops when the size asked is
    /// smaller (its centre puts the odd pixel on the right and bottom: (spare) / 2 from the left).
    static let anchorGravity: [(String, String)] = [
        ("center", "centre"), ("top", "north"), ("bottom", "south"), ("left", "west"), ("right", "east"),
        ("top-left", "north-west"), ("top-right", "north-east"), ("bottom-left", "south-west"), ("bottom-right", "south-east"),
    ]

    @Test("a square aspect crop sits at its anchor pixel for pixel as vips gravity places it, for every anchor on odd and even spare sizes",
          Requirement.tool("vips"), arguments: oracleSizes.indices)
    func aspectCropAnchorsVips(_ sizeIndex: Int) throws {
        let vips = try Requirement.path("vips")
        let shape = Self.oracleSizes[sizeIndex], side = min(shape.0, shape.1)
        let dir = TestPaths.temporaryDirectory("engine-anchors")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try cutPhoto(shape, vips: vips, in: dir)
        for (anchor, gravity) in Self.anchorGravity {
            let ours = try renderPhoto(photo, "  - crop: {aspect: \"1:1\", anchor: \(anchor)}\n", in: dir)
            let ref = dir.appendingPathComponent("vips-\(gravity).png").path
            try runAll(vips, [["gravity", photo, ref, gravity, "\(side)", "\(side)"]])
            #expect(try size(ours) == (side, side), "\(anchor) on \(shape.0)×\(shape.1)")
            #expect(try pixels(ours) == pixels(ref), "\(anchor) on \(shape.0)×\(shape.1): not where vips gravity \(gravity) puts it")
        }
    }

    @Test("rotate, flip and a rectangle crop equal vips rot, flip and extract_area pixel for pixel on odd and even sizes",
          Requirement.tool("vips"), arguments: [(101, 67), (100, 60)])
    func geometryOddEvenVips(_ width: Int, _ height: Int) throws {
        let vips = try Requirement.path("vips")
        let dir = TestPaths.temporaryDirectory("engine-geometry-odd")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try cutPhoto((width, height), vips: vips, in: dir)
        let cases: [(String, [String])] = [
            ("rotate: 90", ["rot", "IN", "OUT", "d90"]), ("rotate: 180", ["rot", "IN", "OUT", "d180"]),
            ("rotate: 270", ["rot", "IN", "OUT", "d270"]),
            ("flip: horizontal", ["flip", "IN", "OUT", "horizontal"]), ("flip: vertical", ["flip", "IN", "OUT", "vertical"]),
            ("crop: {x: 7px, y: 3px, width: 51px, height: 33px}", ["extract_area", "IN", "OUT", "7", "3", "51", "33"]),
            ("crop: {x: 0, y: 1px, width: 1px, height: 59px}", ["extract_area", "IN", "OUT", "0", "1", "1", "59"]),
        ]
        for (stage, args) in cases {
            let ours = try renderPhoto(photo, "  - \(stage)\n", in: dir)
            let ref = dir.appendingPathComponent("vips.png").path
            try runAll(vips, [args.map { $0 == "IN" ? photo : $0 == "OUT" ? ref : $0 }])
            #expect(try size(ours) == size(ref), "\(stage) on \(width)×\(height)")
            #expect(try pixels(ours) == pixels(ref), "\(stage) on \(width)×\(height): pixels differ from vips")
        }
    }
}
