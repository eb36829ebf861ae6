#if canImport(Glibc)
import Glibc
#endif

/// The measurements behind `auto` values (`exposure: auto`, `white-balance: auto`, `levels:
/// {black: auto, white: auto}`), over a reduced image of the photo as it reaches the stage:
/// sRGB-encoded floats, interleaved RGB. One thread, sums in row order in double precision, so
/// a photo gives the same values on any machine and thread count; docs/auto.md says why each
/// measure is what it is.
///
/// ```swift
/// let image = AutoMeasure.Image(width: 512, height: 341, encoded: rows)
/// AutoMeasure.exposure(image)                         // +0.42 (stops)
/// AutoMeasure.illuminant(image)                       // [0.93, 1, 1.21]: linear RGB of its grey
/// AutoMeasure.levels(image, blackClip: 0.001, whiteClip: 0.001)   // (0.031, 0.957)
/// ```
public enum AutoMeasure {
    /// A small image in memory: `encoded` holds width × height × 3 sRGB-encoded samples.
    public struct Image: Sendable {
        public var width: Int
        public var height: Int
        public var encoded: [Float]

        public init(width: Int, height: Int, encoded: [Float]) {
            precondition(encoded.count == width * height * 3)
            self.width = width
            self.height = height
            self.encoded = encoded
        }

        public var pixels: Int { width * height }

        /// Linear light of every sample (the IEC 61966-2-1 curve; the sign kept): samples in 0…1
        /// interpolated in its 16-bit table (exact on the grid, within 1e-7 between: a `pow` a
        /// sample was most of a measurement's time), others by the formula.
        public var linear: [Float] {
            SRGB.decodeTable16.withUnsafeBufferPointer { table in
                encoded.map { v in
                    guard v >= 0, v <= 1 else { return Float(SRGB.decode(Double(v))) }
                    let scaled = v * 65535
                    let i = min(65534, Int(scaled)), f = scaled - Float(i)
                    return table[i] + f * (table[i + 1] - table[i])
                }
            }
        }
    }

    /// Rec. 709 luminance weights of linear sRGB.
    static let luma: (Double, Double, Double) = (0.2126, 0.7152, 0.0722)

    /// The linear luminance auto exposure brings the log average to: 18% grey, L* 49.5.
    public static let middleGrey = 0.18

    /// How far from the centre the exposure's weighting falls to 1/e^½: 0.7 of half the long
    /// side, so that the corners count about a quarter as much as the centre.
    public static let meteringSigma = 0.7

    /// Stops that bring the photo's centre-weighted log-average luminance (Reinhard's key: exp
    /// of the mean of ln Y) to `middleGrey`: centre-weighted as a camera's default metering is,
    /// each pixel weighted by a Gaussian of its distance from the centre (`meteringSigma`).
    /// Pixels darker than 1/1000 count as 1/1000, so a black border does not pull the key to zero.
    public static func exposure(_ image: Image) -> Double {
        let linear = image.linear
        guard image.pixels > 0 else { return 0 }
        let half = Double(max(image.width, image.height)) / 2
        let spread = 2 * meteringSigma * meteringSigma * half * half
        // The Gaussian is separable: a weight a column times a weight a row.
        func weights(_ n: Int) -> [Double] {
            (0..<n).map { let d = Double($0) + 0.5 - Double(n) / 2; return exp(-d * d / spread) }
        }
        let columns = weights(image.width), rows = weights(image.height)
        var sum = 0.0, weights = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = y * image.width + x
                let w = columns[x] * rows[y]
                let luminance = luma.0 * Double(linear[3 * i]) + luma.1 * Double(linear[3 * i + 1]) + luma.2 * Double(linear[3 * i + 2])
                sum += w * log(max(luminance, 1e-3))
                weights += w
            }
        }
        return log2(middleGrey / exp(sum / weights))
    }

    /// The linear RGB of the light, green 1: where the photo's near-grey pixels are. Each pixel
    /// votes, with its luminance, for the lights that would make it grey; the lights considered
    /// are those of the DNG SDK's locus from 2,000 to 12,500 K and tints −50 to +50 (a light
    /// that makes a purple wall grey is no light), so the candidate with the most bright
    /// near-grey surface wins (a white or grey card, paper, clouds: bright surfaces are more
    /// often neutral than not). The estimate is then the mean log chromaticity (log R/G, log
    /// B/G) of the pixels around it, each pixel counting once whatever its lightness, narrowing
    /// from 0.1 to 0.05, so that it lands on the greys themselves rather than the locus. Pixels near black or clipped are left out.
    /// Each 2×2 block is averaged first (in linear light): a reduced decode, a half-size raw
    /// develop above all, keeps the sensor's noise, which scatters a grey patch's pixels beyond
    /// the radius that tells it from a coloured one. nil when no pixel votes.
    ///
    /// `light` gives a candidate light's colour in the image's own RGB (a camera's, before its
    /// matrix: `RawWhiteBalance`); by default linear sRGB balanced for D65.
    public static func illuminant(_ image: Image, light: (_ temperature: Double, _ tint: Double) -> [Double]? = lightRGB) -> [Double]? {
        let linear = boxAveraged(image)
        // Log chromaticities of the usable pixels, binned at 0.01 over ±2.5, weighted by luminance.
        let bins = 500, bin = 0.01, half = 2.5
        var histogram = [Double](repeating: 0, count: bins * bins)
        var chroma: [(red: Double, blue: Double, pixel: Int)] = []
        chroma.reserveCapacity(image.pixels)
        // Near black is a fraction of the photo's own brightest (a dark raw's camera RGB is
        // all below 0.01); clipped is near 1, where the sensor or the encoding stops.
        let dark = 0.002 * brightest(linear)
        for i in 0..<(linear.count / 3) {
            let r = Double(linear[3 * i]), g = Double(linear[3 * i + 1]), b = Double(linear[3 * i + 2])
            guard min(r, g, b) > dark, max(r, g, b) < 0.95 else { continue }
            let c = (red: log(r / g), blue: log(b / g), pixel: i)
            chroma.append(c)
            let x = Int(((c.red + half) / bin).rounded()), y = Int(((c.blue + half) / bin).rounded())
            guard x >= 0, x < bins, y >= 0, y < bins else { continue }
            histogram[x * bins + y] += luma.0 * r + luma.1 * g + luma.2 * b
        }
        guard !chroma.isEmpty else { return nil }
        let radius = 5
        var best: (votes: Double, red: Double, blue: Double)?
        for mired in stride(from: 80.0, through: 500, by: 5) {
            for tint in stride(from: -50.0, through: 50, by: 5) {
                guard let light = light(1e6 / mired, tint), light.count == 3, light.allSatisfy({ $0 > 0 }) else { continue }
                let (red, blue) = (log(light[0] / light[1]), log(light[2] / light[1]))
                let cx = Int(((red + half) / bin).rounded()), cy = Int(((blue + half) / bin).rounded())
                var votes = 0.0
                for dx in -radius...radius where cx + dx >= 0 && cx + dx < bins {
                    for dy in -radius...radius where dx * dx + dy * dy <= radius * radius && cy + dy >= 0 && cy + dy < bins {
                        votes += histogram[(cx + dx) * bins + cy + dy]
                    }
                }
                if votes > best?.votes ?? 0 { best = (votes, red, blue) }
            }
        }
        guard var (_, red, blue) = best else { return nil }
        for radius in [0.1, 0.07, 0.05, 0.05, 0.05] {
            var sum = (red: 0.0, blue: 0.0), count = 0
            for c in chroma {
                let dr = c.red - red, db = c.blue - blue
                guard dr * dr + db * db <= radius * radius else { continue }
                sum = (sum.red + c.red, sum.blue + c.blue)
                count += 1
            }
            guard count >= 16 else { break }
            (red, blue) = (sum.red / Double(count), sum.blue / Double(count))
        }
        return [exp(red), 1, exp(blue)]
    }

    /// The largest channel value below which 99.5% of the pixels lie (1 for an empty image):
    /// how bright the photo's brightest things are, a few specular highlights left out.
    static func brightest(_ linear: [Float]) -> Double {
        var histogram = [Int](repeating: 0, count: 1025)
        let n = linear.count / 3
        guard n > 0 else { return 1 }
        for i in 0..<n {
            let m = Double(max(linear[3 * i], linear[3 * i + 1], linear[3 * i + 2]))
            histogram[Int((min(1, max(0, m)) * 1024).rounded())] += 1
        }
        var seen = 0, level = 1024
        while level > 0, Double(seen + histogram[level]) <= 0.005 * Double(n) { seen += histogram[level]; level -= 1 }
        return max(1.0 / 1024, Double(level) / 1024)
    }

    /// The linear pixels of `image` averaged over 2×2 blocks (a last odd row or column left
    /// out), interleaved RGB; the image itself, linear, when it is smaller than 2×2.
    static func boxAveraged(_ image: Image) -> [Float] {
        let linear = image.linear
        let (w, h) = (image.width / 2, image.height / 2)
        guard w > 0, h > 0 else { return linear }
        var out = [Float](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 {
                    let a = (2 * y * image.width + 2 * x) * 3 + c, b = a + image.width * 3
                    out[(y * w + x) * 3 + c] = (linear[a] + linear[a + 3] + linear[b] + linear[b + 3]) / 4
                }
            }
        }
        return out
    }

    /// Linear sRGB of the white of (temperature, tint), green 1: the colour a grey has under that
    /// light in a photo balanced for D65.
    public static func lightRGB(_ temperature: Double, _ tint: Double) -> [Double]? {
        let (x, y) = WhiteBalance.xy(temperature: temperature, tint: tint)
        let xyz = [x / y, 1, (1 - x - y) / y]
        let m = WhiteBalance.inverse(WhiteBalance.rgbToXYZ)
        let rgb = (0..<3).map { r in (0..<3).reduce(0.0) { $0 + m[r * 3 + $1] * xyz[$1] } }
        return rgb.map { $0 / rgb[1] }
    }

    /// The black and white points of `levels: auto`: as ImageMagick's `-contrast-stretch`
    /// finds them, over the intensity 0.212656·R + 0.715158·G + 0.072186·B of the encoded
    /// samples in 65,536 levels: black the lowest level whose pixels at or below it are more
    /// than `blackClip` of all, white the highest whose pixels at or above it are more than
    /// `whiteClip` of all. nil when they do not leave a range (a flat image).
    public static func levels(_ image: Image, blackClip: Double, whiteClip: Double) -> (black: Double, white: Double)? {
        let levels = 65536
        var histogram = [Int](repeating: 0, count: levels)
        for i in 0..<image.pixels {
            let v = 0.212656 * Double(image.encoded[3 * i]) + 0.715158 * Double(image.encoded[3 * i + 1])
                + 0.072186 * Double(image.encoded[3 * i + 2])
            let level = Int((min(1, max(0, v)) * Double(levels - 1)).rounded())
            histogram[level] += 1
        }
        let total = Double(image.pixels)
        var black = 0, seen = 0
        while black < levels - 1 {
            seen += histogram[black]
            if Double(seen) > blackClip * total { break }
            black += 1
        }
        var white = levels - 1
        seen = 0
        while white > 0 {
            seen += histogram[white]
            if Double(seen) > whiteClip * total { break }
            white -= 1
        }
        guard white > black else { return nil }
        return (Double(black) / Double(levels - 1), Double(white) / Double(levels - 1))
    }
}
