import Glibc
import RecipeCodecs
import RecipeCore

/// How far two images are apart, sample by sample, as recipe's own decoders read them (the way
/// the CLI tests' `decodedPixels` looks at what a command wrote): the sum of squared differences
/// over every sample of every row, and the PSNR from it.
///
/// ```swift
/// let difference = try ImageDifference.between("down.png", "display.png").get()
/// difference.psnr   // 47.31: 10·log10(255² / MSE); 99 when the samples are identical
/// ```
struct ImageDifference {
    /// The decoded format (both have it): 8-bit samples, or 16-bit for a 16-bit PNG.
    let format: PixelFormat
    /// Σ (a − b)² over every sample.
    let squaredErrorSum: UInt64
    /// Samples compared: width × height × channels.
    let sampleCount: Int

    /// The PSNR reported for identical images.
    static let identicalPSNR = 99.0

    /// The largest sample value: 255, or 65535 for 16-bit images (so their PSNR reads on the same
    /// scale as the 8-bit ones').
    var peak: Double { format.sampleType == .uint16 ? 65535 : 255 }

    /// The mean of the squared differences.
    var meanSquaredError: Double { sampleCount > 0 ? Double(squaredErrorSum) / Double(sampleCount) : 0 }

    /// 10·log10(peak² / MSE) in dB, `identicalPSNR` when every sample is equal.
    var psnr: Double {
        squaredErrorSum == 0 ? Self.identicalPSNR : 10 * log10(peak * peak / meanSquaredError)
    }

    /// Why two images could not be compared: a decoder's error, or sizes or formats that differ.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Decodes the images at `first` and `second` (JPEG or PNG, by content) strip by strip, side
    /// by side, and sums the squared differences of their samples.
    static func between(_ first: String, _ second: String) -> Result<ImageDifference, Problem> {
        do {
            let a = try ImageDecoders.open(first)
            let b = try ImageDecoders.open(second)
            try a.start(scaleDenominator: 1)
            try b.start(scaleDenominator: 1)
            let firstName = FileSystem.baseName(first), secondName = FileSystem.baseName(second)
            guard a.width == b.width, a.height == b.height else {
                return .failure(Problem(description: "sizes differ: \(firstName) \(a.width)×\(a.height), "
                    + "\(secondName) \(b.width)×\(b.height)"))
            }
            guard a.format == b.format else {
                return .failure(Problem(description: "formats differ: \(firstName) \(a.format), \(secondName) \(b.format)"))
            }
            guard a.format.sampleType != .float32 else {
                return .failure(Problem(description: "\(firstName): \(a.format) samples; integer samples expected"))
            }
            // The same strip height for both: a decoder fills min(capacity, rows left) rows.
            let stripA = PixelBuffer(width: a.width, rowCapacity: 32, format: a.format)
            let stripB = PixelBuffer(width: b.width, rowCapacity: 32, format: b.format)
            var sum: UInt64 = 0
            var rows = 0
            while try a.readRows(into: stripA) > 0 {
                guard try b.readRows(into: stripB) == stripA.rowCount else {
                    return .failure(Problem(description: "\(secondName) gave rows out of step with \(firstName)"))
                }
                for row in 0..<stripA.rowCount {
                    switch a.format.sampleType {
                    case .uint8:
                        sum &+= squaredErrors(stripA.samples(row, as: UInt8.self), stripB.samples(row, as: UInt8.self))
                    case .uint16, .float32:
                        sum &+= squaredErrors(stripA.samples(row, as: UInt16.self), stripB.samples(row, as: UInt16.self))
                    }
                }
                rows += stripA.rowCount
            }
            guard rows == a.height else {
                return .failure(Problem(description: "\(firstName): the decoder gave \(rows) of \(a.height) rows"))
            }
            return .success(ImageDifference(format: a.format, squaredErrorSum: sum, sampleCount: a.width * a.height * a.format.channels))
        } catch {
            return .failure(Problem(description: "cannot decode: \(error)"))
        }
    }

    /// Σ (a[i] − b[i])² over two rows of the same length.
    private static func squaredErrors<Sample: FixedWidthInteger & UnsignedInteger>(
        _ a: UnsafeMutableBufferPointer<Sample>, _ b: UnsafeMutableBufferPointer<Sample>
    ) -> UInt64 {
        var sum: UInt64 = 0
        for index in 0..<min(a.count, b.count) {
            let difference = Int64(a[index]) - Int64(b[index])
            sum &+= UInt64(difference * difference)
        }
        return sum
    }
}
