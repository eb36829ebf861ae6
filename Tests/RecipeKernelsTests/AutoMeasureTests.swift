import Foundation
@testable import RecipeKernels
import Testing

/// The measures behind `auto`, on images made in the test whose answer is known by a formula:
/// the sRGB curve and the log average written out here, greys under a known light among
/// coloured pixels, a histogram counted by hand; and the white balance's inverse checked
/// through the forward matrix it inverts.
@Suite("AutoMeasure")
struct AutoMeasureTests {
    /// The IEC 61966-2-1 encoding, written out.
    static func encode(_ l: Double) -> Float {
        Float(l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055)
    }

    /// An image of `width`×`height` whose pixel (x, y) is `linear(x, y)` (linear RGB).
    static func image(_ width: Int, _ height: Int, _ linear: (Int, Int) -> [Double]) -> AutoMeasure.Image {
        var samples: [Float] = []
        for y in 0..<height { for x in 0..<width { samples += linear(x, y).map(encode) } }
        return AutoMeasure.Image(width: width, height: height, encoded: samples)
    }

    @Test("exposure: a uniform grey of luminance Y gets log2(0.18 / Y) stops, whatever the weighting")
    func uniformExposure() {
        for y in [0.01, 0.045, 0.18, 0.6] {
            let ev = AutoMeasure.exposure(Self.image(40, 30) { _, _ in [y, y, y] })
            #expect(abs(ev - log2(0.18 / y)) < 1e-4, "Y \(y): \(ev)")
        }
    }

    @Test("exposure: centre-weighted log average, by the formula: a bright centre counts more than dark corners; black counts as 1/1000")
    func weightedExposure() {
        let (w, h) = (60, 40)
        func luminance(_ x: Int, _ y: Int) -> Double { abs(x - w / 2) < 10 && abs(y - h / 2) < 8 ? 0.5 : (x < 5 ? 0 : 0.05) }
        let image = Self.image(w, h) { x, y in let v = luminance(x, y); return [v, v, v] }
        var sum = 0.0, weights = 0.0
        let half = Double(max(w, h)) / 2
        for y in 0..<h {
            for x in 0..<w {
                let dx = Double(x) + 0.5 - Double(w) / 2, dy = Double(y) + 0.5 - Double(h) / 2
                let weight = exp(-(dx * dx + dy * dy) / (2 * 0.49 * half * half))
                // The 8-bit-free round trip of the encoding: the luminance as the image holds it.
                sum += weight * log(max(luminance(x, y), 1e-3))
                weights += weight
            }
        }
        let expected = log2(0.18 / exp(sum / weights))
        #expect(abs(AutoMeasure.exposure(image) - expected) < 1e-3, "\(AutoMeasure.exposure(image)) against \(expected)")
        // Uniform weights would say otherwise: the weighting is measured, not assumed.
        var flat = 0.0
        for y in 0..<h { for x in 0..<w { flat += log(max(luminance(x, y), 1e-3)) } }
        #expect(abs(log2(0.18 / exp(flat / Double(w * h))) - expected) > 0.1)
    }

    @Test("the light: greys lit by 3000 K, tint −20, a fifth of the image at several lightnesses, among saturated purple, blue, green and red areas, are found within 1% in R/G and B/G")
    func illuminant() throws {
        let light = try #require(AutoMeasure.lightRGB(3000, -20))
        let image = Self.image(100, 80) { x, y in
            switch (x / 20, y / 20) {
            case (0, _): let k = [0.05, 0.1, 0.2, 0.4][y / 20]; return light.map { $0 * k * 0.6 }
            case (1, _): return [0.3, 0.05, 0.35]       // purple
            case (2, _): return [0.02, 0.08, 0.4]       // blue
            case (3, _): return [0.05, 0.3, 0.04]       // green
            default: return [0.4, 0.05, 0.08]           // red
            // (A large orange wall near the locus would win over dimmer greys: docs/auto.md.)
            }
        }
        let found = try #require(AutoMeasure.illuminant(image))
        #expect(abs(found[0] / light[0] - 1) < 0.01 && abs(found[2] / light[2] - 1) < 0.01, "found \(found), lit by \(light)")
    }

    @Test("the light of an image with nothing usable (all black) is nil")
    func noLight() {
        #expect(AutoMeasure.illuminant(Self.image(10, 10) { _, _ in [0, 0, 0] }) == nil)
    }

    @Test("neutralising: the white-balance matrix of the (temp, tint) found turns the light into R = G = B, for lights on and off the locus and targets other than 6500 K")
    func neutralising() throws {
        for light in [[2.3, 1, 0.63], [0.8, 1, 1.3], [1.1, 1, 0.9], [1, 1, 1]] {
            for (targetTemp, targetTint) in [(6500.0, 0.0), (5000, 10)] {
                let (temp, tint) = try #require(WhiteBalance.neutralising(light, targetTemperature: targetTemp, targetTint: targetTint))
                let m = WhiteBalance.matrix(temperature: temp, tint: tint, targetTemperature: targetTemp, targetTint: targetTint)
                let out = (0..<3).map { r in (0..<3).reduce(0.0) { $0 + Double(m[r * 4 + $1]) * light[$1] } }
                #expect(abs(out[0] / out[1] - 1) < 1e-5 && abs(out[2] / out[1] - 1) < 1e-5, "light \(light) → \(temp) K, tint \(tint): \(out)")
            }
        }
    }

    @Test("temperatureTint inverts xy(temperature:tint:) across the table")
    func inverse() throws {
        for temp in [2000.0, 2850, 4000, 5500, 6500, 9000, 15000, 40000] {
            for tint in [-100.0, -10, 0, 25, 120] {
                let (x, y) = WhiteBalance.xy(temperature: temp, tint: tint)
                let back = try #require(WhiteBalance.temperatureTint(x: x, y: y))
                #expect(abs(back.temperature / temp - 1) < 1e-6 && abs(back.tint - tint) < 1e-6, "\(temp) K \(tint): \(back)")
            }
        }
    }

    @Test("levels: black and white where the pixels counted from each end first exceed the clip fractions (ImageMagick's rule), on 65,536 levels")
    func levels() throws {
        // 1000 greys, i/999 for i in 0..<1000: with 0.5% and 1% clipped, the counts cross 5 and 10
        // at the sixth darkest and the eleventh lightest.
        let image = AutoMeasure.Image(width: 1000, height: 1, encoded: (0..<1000).flatMap { i in Array(repeating: Float(Double(i) / 999), count: 3) })
        let (black, white) = try #require(AutoMeasure.levels(image, blackClip: 0.005, whiteClip: 0.01))
        func level(_ i: Int) -> Double { (Double(i) / 999 * 65535).rounded() / 65535 }
        #expect(abs(black - level(5)) < 1e-12 && abs(white - level(989)) < 1e-12, "\(black) \(white)")
        #expect(AutoMeasure.levels(AutoMeasure.Image(width: 4, height: 1, encoded: Array(repeating: 0.5, count: 12)), blackClip: 0.001, whiteClip: 0.001) == nil)
    }
}
