import Foundation
import RecipeCore
import RecipeKernels
import RecipeRender
import Testing
import TestSupport

/// Float RGB rows (planar, linear light) held in memory, handed out in strips.
final class FloatImage: RowSource {
    let width: Int, height: Int
    let format = PixelFormat(.rgb, .float32)
    let planes: [Float]  // each row: its red, green and blue planes
    var next = 0
    init(_ planes: [Float], width: Int, height: Int) {
        precondition(planes.count == 3 * width * height)
        (self.planes, self.width, self.height) = (planes, width, height)
    }
    func readRows(into b: PixelBuffer) throws -> Int {
        let n = min(b.rowCapacity, 11, height - next)
        for r in 0..<n {
            let out = b.row(r).assumingMemoryBound(to: Float.self)
            planes.withUnsafeBufferPointer { p in out.update(from: p.baseAddress! + (next + r) * 3 * width, count: 3 * width) }
        }
        b.rowCount = n; b.originY = next; next += n
        return n
    }
}

/// A checkerboard photographed through a real lens by lensfun's own forward model
/// (`Tests/Tools/lens_checkerboard.py`: lensfunpy with `reverse`, each channel sampled from the
/// analytic board where the lens put it) and corrected by `LensWarpStep` with the calibration
/// lensfun gives: every edge of the board comes back straight within 0.5 px (the bound),
/// in each of the three channels (TCA corrected too). The uncorrected board's edges bend by
/// pixels, so the measure sees what it is meant to.
@Suite("lens correction of a distorted checkerboard")
struct LensWarpStepTests {
    struct Board: Decodable {
        struct Model: Decodable { var model: String; var terms: [Double] }
        var cameraCrop: Double, lensCrop: Double, square: Double, aspectRatio: Double, centerX: Double, centerY: Double
        var distortion: Model?, tca: Model?
    }

    static func board(camera: (String, String), lens: (String, String), focal: Double, width: Int, height: Int, square: Int)
        throws -> (FloatImage, Board) {
        let python = try Requirement.path("python3")
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/lens_checkerboard.py").path
        let out = TestPaths.temporaryDirectory("lens-board").appendingPathComponent("board.f32").path
        let result = try ExternalTool.run(python, [script, out, camera.0, camera.1, lens.0, lens.1, "\(focal)", "\(width)", "\(height)", "\(square)"])
        try #require(result.status == 0, "lens_checkerboard.py: \(result.stderr)")
        let info = try JSONDecoder().decode(Board.self, from: result.stdout)
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (FloatImage(floats, width: width, height: height), info)
    }

    static func calibration(_ b: Board) -> LensCalibration {
        var c = LensCalibration(source: .lensfun(profile: "test"), calibrationCropFactor: b.lensCrop,
                                calibrationAspectRatio: b.aspectRatio, centerX: b.centerX, centerY: b.centerY)
        if let d = b.distortion {
            let t = d.terms
            c.distortion = d.model == "poly3" ? .poly3(k1: t[0]) : d.model == "poly5" ? .poly5(k1: t[0], k2: t[1]) : .ptlens(a: t[0], b: t[1], c: t[2])
        }
        if let m = b.tca {
            let t = m.terms
            c.tca = m.model == "linear" ? .linear(kr: t[0], kb: t[1]) : .poly3(vr: t[0], vb: t[1], cr: t[2], cb: t[3], br: t[4], bb: t[5])
        }
        return c
    }

    static func read(_ source: RowSource) throws -> [Float] {
        let strip = PixelBuffer(width: source.width, rowCapacity: 9, format: source.format)
        var out: [Float] = []
        while try source.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount {
                out += UnsafeBufferPointer(start: strip.row(r).assumingMemoryBound(to: Float.self), count: 3 * source.width)
            }
        }
        return out
    }

    /// The worst distance of the board's edges from a straight line fitted to each, in pixels,
    /// over the middle `keep` of the frame, each channel on its own: horizontal edges found down
    /// each column (the level halfway between the squares above and below), vertical ones along
    /// each row.
    static func worstBend(_ planes: [Float], width w: Int, height h: Int, square: Int, keep: Double = 0.9) -> Double {
        func value(_ c: Int, _ x: Int, _ y: Int) -> Double { Double(planes[(y * 3 + c) * w + x]) }
        let (x0, x1) = (Int(Double(w) * (1 - keep) / 2), Int(Double(w) * (1 + keep) / 2))
        let (y0, y1) = (Int(Double(h) * (1 - keep) / 2), Int(Double(h) * (1 + keep) / 2))
        var worst = 0.0
        for c in 0..<3 {
            for vertical in [false, true] {
                let (along, across) = vertical ? ((y0, y1), (x0, x1)) : ((x0, x1), (y0, y1))
                for edge in Swift.stride(from: square, to: vertical ? w : h, by: square) where edge > across.0 + square / 2 && edge < across.1 - square / 2 {
                    // Crossings of the level halfway between the plateaus either side.
                    var points: [(Double, Double)] = []
                    for t in along.0..<along.1 {
                        // Away from the edges across: the middle third of each square.
                        let phase = t % square
                        guard phase > square / 3, phase < 2 * square / 3 else { continue }
                        func v(_ s: Int) -> Double { vertical ? value(c, s, t) : value(c, t, s) }
                        let before = v(edge - square / 3), after = v(edge + square / 3 - 1)
                        let level = (before + after) / 2
                        var found: Double?
                        for s in (edge - square / 3)..<(edge + square / 3 - 1) {
                            let (a, b) = (v(s) - level, v(s + 1) - level)
                            if a == 0 { found = Double(s); break }
                            if (a < 0) != (b < 0) { found = Double(s) + a / (a - b); break }
                        }
                        if let found { points.append((Double(t), found)) }
                    }
                    guard points.count > 10 else { continue }
                    let n = Double(points.count)
                    let mx = points.map(\.0).reduce(0, +) / n, my = points.map(\.1).reduce(0, +) / n
                    let sxy = points.map { ($0.0 - mx) * ($0.1 - my) }.reduce(0, +), sxx = points.map { ($0.0 - mx) * ($0.0 - mx) }.reduce(0, +)
                    let slope = sxy / sxx
                    for (t, s) in points { worst = max(worst, abs(s - (my + slope * (t - mx)))) }
                }
            }
        }
        return worst
    }

    @Test("a board distorted through lensfun's model comes back straight within 0.5 px, every channel",
          Requirement.python("lensfunpy", "numpy", "scipy"),
          arguments: [
            (("Canon", "Canon EOS 600D"), ("Canon", "Canon EF-S 18-55mm f/3.5-5.6 IS"), 18.0),
            (("Canon", "Canon PowerShot G12"), ("Canon", "Canon PowerShot G12 & compatibles (Standard)"), 6.1),
            (("OLYMPUS IMAGING CORP.", "E-M5"), ("Olympus", "Olympus Zuiko Digital ED 9-18mm f/4.0-5.6"), 9.0),
          ])
    func straight(camera: (String, String), lens: (String, String), focal: Double) throws {
        let (w, h, square) = (1500, 1000, 50)
        let (image, info) = try Self.board(camera: camera, lens: lens, focal: focal, width: w, height: h, square: square)
        let before = Self.worstBend(image.planes, width: w, height: h, square: square)
        let g = LensGeometry(calibration: Self.calibration(info), cameraCropFactor: info.cameraCrop, width: w, height: h)
        let corrected = try Self.read(LensWarpStep(source: image, geometry: g, width: w, height: h, pool: WorkerPool(threads: 2)))
        let after = Self.worstBend(corrected, width: w, height: h, square: square)
        testNote("\(lens.1) at \(focal) mm: edges bend \(before) px before, \(after) px after")
        #expect(before > 2, "the distorted board's edges should bend (\(before) px)")
        #expect(after < 0.5, "\(lens.1): edges bend \(after) px after the correction")
    }
}
