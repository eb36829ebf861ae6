import RecipeKernels

/// The colour conversions at the two ends of a plan: the photo's encoded values into the working
/// space (linear light, sRGB primaries, extended range), and the working space into the output's
/// encoded values. sRGB in and out needs neither: the plan then starts and ends sRGB-encoded, as
/// it always has, and pays nothing.
///
/// ```swift
/// var color = ColorEndpoints()
/// color.source = [.toLinear, .matrix(p3ToWorking)]     // a Display P3 photo
/// color.sourceName = "Display P3"
/// ```
public struct ColorEndpoints: Sendable, Hashable {
    /// Steps from the photo's encoded values to linear working-space values (empty: the photo is
    /// sRGB, and the plan starts sRGB-encoded).
    public var source: [PointStep] = []
    /// What the photo's colours are, for `recipe explain`.
    public var sourceName = "sRGB"
    /// Steps from linear working-space values to the output's encoded values (empty: sRGB out).
    public var output: [PointStep] = []
    /// What the output's colours are.
    public var outputName = "sRGB"

    public init() {}

    /// Whether the ends convert anything.
    public var converts: Bool { !source.isEmpty || !output.isEmpty }
}
