import Foundation

/// CIE L*a*b* of sRGB colours, by the formula: the IEC 61966-2-1 curve to linear light, the sRGB
/// matrix to XYZ (D65), then L*a*b* against that matrix's white (0.95047, 1, 1.08883), with no
/// chromatic adaptation. How the tests say how light or how coloured a render is.
///
/// ```swift
/// let grey = CIELab(red: 0.5, green: 0.5, blue: 0.5)   // L* 53.4, a* 0, b* 0
/// grey.chroma                                          // C*ab: 0
/// ```
public struct CIELab: Sendable, Equatable {
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        (self.l, self.a, self.b) = (l, a, b)
    }

    /// The colour of sRGB-encoded values in 0…1.
    public init(red: Double, green: Double, blue: Double) {
        func linear(_ v: Double) -> Double {
            let x = min(1, max(0, v))
            return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
        }
        let (r, g, bl) = (linear(red), linear(green), linear(blue))
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * bl) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * bl
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * bl) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        self.init(l: 116 * f(y) - 16, a: 500 * (f(x) - f(y)), b: 200 * (f(y) - f(z)))
    }

    /// C*ab: how far from grey.
    public var chroma: Double { (a * a + b * b).squareRoot() }

    /// The mean of each coordinate (a region's average colour as the tests measure it).
    public static func mean(_ colours: some Collection<CIELab>) -> CIELab {
        let n = Double(max(1, colours.count))
        return CIELab(l: colours.reduce(0) { $0 + $1.l } / n, a: colours.reduce(0) { $0 + $1.a } / n, b: colours.reduce(0) { $0 + $1.b } / n)
    }
}

/// An sRGB image's pixels as CIE L*a*b*, row after row, from interleaved samples of `channels`
/// per pixel (the first three are R, G, B) at `maximum` for white (255, or 65535 for 16 bits).
public struct LabImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [CIELab]

    public init(width: Int, height: Int, samples: [Int], channels: Int, maximum: Int) {
        precondition(samples.count == width * height * channels && channels >= 3)
        self.width = width
        self.height = height
        let scale = 1 / Double(maximum)
        pixels = (0..<(width * height)).map { i in
            CIELab(red: Double(samples[i * channels]) * scale, green: Double(samples[i * channels + 1]) * scale,
                   blue: Double(samples[i * channels + 2]) * scale)
        }
    }

    /// The mean L* of every pixel.
    public var meanLightness: Double { pixels.reduce(0) { $0 + $1.l } / Double(max(1, pixels.count)) }

    /// The mean colour of the `w`×`h` box whose top-left corner is (`x`, `y`).
    public func mean(x: Int, y: Int, width w: Int, height h: Int) -> CIELab {
        CIELab.mean((y..<(y + h)).flatMap { row in pixels[(row * width + x)..<(row * width + x + w)] })
    }

    public subscript(x: Int, y: Int) -> CIELab { pixels[y * width + x] }
}
