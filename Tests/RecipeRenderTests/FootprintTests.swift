import RecipeCore
import RecipeKernels
import RecipeRender
import Testing

/// The sizes the memory estimate takes from the stages' `footprint`s, against what the stages
/// themselves keep (where they say) and the bounds a footprint must respect.
@Suite("stage footprints")
struct FootprintTests {
    /// Float RGB rows of a size; never read (the steps are only built).
    final class Placeholder: RowSource {
        let width: Int, height: Int
        let format = PixelFormat(.rgb, .float32)
        init(_ width: Int, _ height: Int) { (self.width, self.height) = (width, height) }
        func readRows(into buffer: PixelBuffer) throws -> Int { 0 }
    }

    @Test("a straighten's footprint keeps the band of rows the step keeps", arguments: [-45.0, -12, -1.5, 0.3, 5, 44])
    func straightenBand(angle: Double) {
        let (w, h) = (4000, 6000)
        for fill in StraightenStep.Fill.allCases {
            let size = fill == .crop ? (w, h) : Rotation.expandedSize(width: w, height: h, angleDegrees: angle)
            let step = StraightenStep(source: Placeholder(w, h), angleDegrees: angle, fill: fill, width: size.0, height: size.1)
            let footprint = StraightenStep.footprint(source: (w, h), angleDegrees: angle, fill: fill, width: size.0, height: size.1)
            #expect(footprint.lookahead == step.ringRows, "\(angle)° \(fill)")
            #expect(footprint.bytes >= step.ringRows * w * 12, "\(angle)° \(fill): \(footprint.bytes)")
            // A window keeps the band of its own rows: never more than the whole canvas's.
            let window = (x: size.0 / 4, y: size.1 / 3, width: size.0 / 2, height: size.1 / 3)
            let windowed = StraightenStep(source: Placeholder(w, h), angleDegrees: angle, fill: fill, width: size.0, height: size.1,
                                          window: window, mirrored: true)
            let windowFootprint = StraightenStep.footprint(source: (w, h), angleDegrees: angle, fill: fill, width: size.0, height: size.1,
                                                           window: window, mirrored: true)
            #expect(windowFootprint.lookahead == windowed.ringRows && windowed.ringRows <= step.ringRows, "\(angle)° \(fill) window")
        }
    }

    @Test("a branch point keeps the rows between its readers, never more than the image")
    func teeBounds() {
        let format = PixelFormat(.rgb, .float32)
        let strip = PixelBuffer.bytes(width: 1000, rowCapacity: 16, format: format)
        #expect(RowTee.footprint(width: 1000, height: 6000, format: format, lead: 0) == 2 * strip)
        #expect(RowTee.footprint(width: 1000, height: 6000, format: format, lead: 100) == 9 * strip)
        let whole = RowTee.footprint(width: 1000, height: 6000, format: format, lead: 6000)
        #expect(whole == 375 * strip && whole >= 1000 * 6000 * 12)
        #expect(RowTee.footprint(width: 1000, height: 6000, format: format, lead: 1_000_000) == whole)
    }

    @Test("a whole-image step holds its image; a left–right mirror a strip")
    func orient() {
        let format = PixelFormat(.rgb, .uint8)
        let turn = OrientStep.footprint(source: (4000, 6000, format), orientation: .right, stripRows: 16)
        #expect(turn.bytes >= 4000 * 6000 * 3 && turn.bytes < 4000 * 6000 * 3 + (1 << 20) && turn.lookahead == 6000)
        let mirror = OrientStep.footprint(source: (4000, 6000, format), orientation: .upMirrored, stripRows: 16)
        #expect(mirror.bytes == PixelBuffer.bytes(width: 4000, rowCapacity: 16, format: format) && mirror.lookahead == 16)
    }

    @Test("a wide window on the coarse grid keeps far less than the direct sums would")
    func coarseWindow() {
        // σ 80 px (clarity at 2% of photo24's short side): 597 taps a pass directly, a 10× coarser grid.
        let coarse = BlurStage.footprint(width: 4000, height: 6000, sigma: 80, mode: .unsharp(amount: 0.3, threshold: 0, luma: true))
        // σ 15 px is the widest the direct sums take: 2r + 6 rows of planes and of originals.
        let direct = BlurStage.footprint(width: 4000, height: 6000, sigma: 15, mode: .unsharp(amount: 0.3, threshold: 0, luma: true))
        let directRows = GaussianBlur.taps(sigma: 15).count - 1 + GaussianBlur.verticalRowsPerPass
        #expect(direct.bytes >= directRows * 4000 * 4 * 4, "ring and originals: \(direct.bytes)")
        #expect(coarse.lookahead > direct.lookahead, "the coarse window reaches further ahead")
        #expect(coarse.bytes < 3 * coarse.lookahead * 4000 * 4 + (2 << 20), "only the originals wait at full size: \(coarse.bytes)")
    }
}
