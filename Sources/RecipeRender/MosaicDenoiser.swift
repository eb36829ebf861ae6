internal import CDenoise
import RecipeCore

/// The raw develop's denoise, between the unpacked mosaic and the demosaic (`DemosaicStage`): it
/// makes denoised mosaic rows in order, a band at a time, into a window the demosaic reads as if
/// it were the frame (`rows(_:)` gives the view). The mosaic itself is never written (the preview
/// keeps it to develop again), and only the window and one band's working planes are held: about
/// 30 floats a column for each row of the band, not a second mosaic.
///
/// The noise model is the recipe's, or estimated from the mosaic's two greens when the stage is
/// made (`NoiseModel.estimated`), once per photo.
///
/// ```swift
/// let denoiser = MosaicDenoiser(mosaic, denoise: RawDenoise(luma: 1, chroma: 1))
/// var view = denoiser.rows(0..<120)     // rows 0..<120 denoised; the view reads them
/// ```
public final class MosaicDenoiser {
    let mosaic: RawMosaic
    let model: NoiseModel
    private var settings: rcp_mosaic_denoise
    private let window: UnsafeMutablePointer<UInt16>
    private let capacity: Int
    private let scratch: UnsafeMutablePointer<Float>
    /// The rows of the visible image the window holds, denoised.
    private var held = 0..<0
    /// Rows denoised at a time beyond what is asked (the band's 16 rows of margin are read again
    /// for every band: larger bands read them less often).
    public static let band = 256
    /// The threshold the strength multiplies, in units of the stabilised noise: tuned on the
    /// Kodak mosaics with a known answer (docs/denoise.md): BM3D's 2.7 for hard thresholds was 0.15
    /// to 0.3 dB worse.
    static let threshold: Float = 0.85

    /// A denoiser of `mosaic` whose window holds up to `rows` rows (the most the demosaic asks at
    /// once) beyond the band.
    init(_ mosaic: RawMosaic, denoise: RawDenoise, rows: Int) {
        self.mosaic = mosaic
        var d = Self.settings(mosaic)
        model = denoise.model ?? Self.estimate(mosaic) ?? NoiseModel(gain: 0, floor: 0, estimated: true)
        // A flat or clipped mosaic estimates no photon noise: a tiny gain keeps the stabilising
        // transform defined (it is then a scaling by the floor's deviation).
        d.gain = Float(max(model.gain, 1e-3))
        d.floor = Float(max(model.floor, 1e-3))
        d.luma = Float(denoise.luma) * Self.threshold
        d.chroma = Float(denoise.chroma) * Self.threshold
        settings = d
        capacity = min(mosaic.height, (rows + Self.band + 3) & ~1)
        window = .allocate(capacity: max(1, capacity * mosaic.width))
        scratch = .allocate(capacity: rcp_mosaic_denoise_scratch(Int32(mosaic.width), Int32(Self.band + rows + 2)))
    }

    deinit {
        window.deallocate()
        scratch.deallocate()
    }

    /// What the denoiser holds for a mosaic `width` wide whose demosaic asks `rows` rows at once.
    public static func bytes(width: Int, rows: Int) -> Int {
        (rows + band + 2) * width * 2 + rcp_mosaic_denoise_scratch(Int32(width), Int32(band + rows + 2)) * 4
    }

    /// Rows `wanted` of the visible image denoised, and the demosaic's view of them: the window as
    /// a frame whose visible image starts `held.lowerBound` rows above it. `wanted` must not start
    /// before the previous call's.
    func rows(_ wanted: Range<Int>) -> (samples: UnsafePointer<UInt16>, pitch: Int, top: Int) {
        let height = mosaic.height, width = mosaic.width
        // Bands start on even rows (a 2×2 cell's first): both ends rounded out to even.
        let lo = max(0, wanted.lowerBound) & ~1, hi = min(height, (wanted.upperBound + 1) & ~1)
        precondition(lo >= held.lowerBound || held.isEmpty, "the denoiser's rows are asked in order")
        if !(held.lowerBound <= lo && hi <= held.upperBound) {
            // Keep what is still wanted, then denoise on from where the window ends.
            var start = lo
            if lo < held.upperBound && lo >= held.lowerBound {
                let keep = held.upperBound - lo
                window.update(from: window + (lo - held.lowerBound) * width, count: keep * width)
                start = held.upperBound
            }
            let end = min(height, max(hi, start + Self.band), lo + capacity)
            precondition(hi <= end, "the denoiser's window is too small")
            if start < end {
                rcp_mosaic_denoise_rows(&settings, Int32(start), Int32(end), window + (start - lo) * width, width, scratch)
            }
            held = lo..<end
        }
        return (UnsafePointer(window), width, -held.lowerBound)
    }
}

extension MosaicDenoiser {
    /// The noise model of `mosaic` as the denoise estimates it (`explain` and `info --auto` show
    /// it); nil when the mosaic has too few unclipped patches to tell.
    public static func estimate(_ mosaic: RawMosaic) -> NoiseModel? {
        var d = settings(mosaic)
        var gain: Float = 0, floor: Float = 0
        guard rcp_mosaic_noise_estimate(&d, mosaic.maximum, &gain, &floor) > 0 else { return nil }
        return NoiseModel(gain: Double(gain), floor: Double(floor), estimated: true)
    }

    /// The C view of `mosaic` (the demosaic's, without its white balance), without a model or
    /// strengths yet.
    private static func settings(_ mosaic: RawMosaic) -> rcp_mosaic_denoise {
        let b = DemosaicStage.bayer(mosaic, multipliers: [1, 1, 1])
        var d = rcp_mosaic_denoise()
        (d.raw, d.raw_pitch, d.top, d.left, d.width, d.height) = (b.raw, b.raw_pitch, b.top, b.left, b.width, b.height)
        (d.pattern, d.black) = (b.pattern, b.black)
        return d
    }
}
