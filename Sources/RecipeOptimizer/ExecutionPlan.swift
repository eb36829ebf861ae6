import RecipeCore
import RecipeKernels
import RecipeOps

/// What the interpreter runs: the filter graph lowered to kernel steps, then rewritten by the
/// optimiser passes. Runs of point steps sit between barrier stages (neighbourhood, geometric and
/// composite ones); a graph with branches is laid out in order, with `keep` / `resume` barriers
/// where an image is read by more than one stage.
///
/// ```
/// exposure 0.25 → contrast 1.15 → saturation 1.3     (graph)
/// [lin] matrix · [enc] matrix · [lin] matrix           (lowered)
/// load→lin, matrix, →enc, matrix, →lin, matrix, store←lin   (one fused pass)
/// ```
public struct ExecutionPlan: Sendable, CustomStringConvertible {
    /// One kernel step, the working space it expects, and the stage it came from.
    public struct Step: Sendable, Hashable {
        public var kernel: PointStep
        /// `.linear` or `.encoded` for ops; `.any` for steps indifferent to it (clip).
        public var space: WorkingSpace
        /// `exposure (stage 1)`, or `→ linear` for inserted conversions.
        public var origin: String

        public init(_ kernel: PointStep, space: WorkingSpace, origin: String) {
            self.kernel = kernel
            self.space = space
            self.origin = origin
        }
    }

    /// A stage between runs of point steps: one that needs a window of rows (or the whole image),
    /// or one that routes images between the branches of the graph.
    public enum Barrier: Sendable, Hashable, CustomStringConvertible {
        /// Gaussian blur in linear light, sigma in pixels of the canvas being rendered; `kernel`
        /// `.bandLimited` when that canvas is a reduced render of the full size.
        case blur(sigma: Double, kernel: GaussianBlur.Kernel = .sampled, origin: String)
        /// Unsharp mask on encoded values (sharpen, clarity).
        case unsharp(sigma: Double, kernel: GaussianBlur.Kernel = .sampled, amount: Double, threshold: Double, luma: Bool, origin: String)
        /// Local exposure from the encoded luma blurred by sigma (0: per pixel). A gain on linear
        /// light; `encoded`: the same gain applied to encoded rows (`EncodedGain`), where the
        /// planner found encoded neighbours after it (`EncodedGains`).
        case shadowsHighlights(shadows: Double, highlights: Double, sigma: Double, kernel: GaussianBlur.Kernel = .sampled,
                               encoded: Bool = false, origin: String)
        /// Denoise of encoded values (`DenoiseStage`): luma and chroma strengths, the share of the
        /// luma's removal put back, and the noise's deviation in 8-bit codes (nil: measured).
        case denoise(luma: Double, chroma: Double, detail: Double, noise: Double?, origin: String)
        /// Crop, rotate, flip, straighten or resize.
        case geometric(GeometricStep, origin: String)
        /// The image so far is kept under `name` for `readers` later readers (a branch point).
        case keep(name: String, readers: Int)
        /// The next stage reads the image kept under `name`.
        case resume(name: String)
        /// The image so far blended with the one kept under `with` laid on top.
        case blend(with: String, mode: String, opacity: Double, origin: String)

        /// The space of the float rows the stage reads and writes: linear light for the blur,
        /// shadows/highlights (its gain, unless it runs on encoded rows), straighten and resize;
        /// encoded for the unsharp mask and blends (and so for the images kept for them); `.none`
        /// for steps that only move pixels.
        public var space: WorkingSpace {
            switch self {
            case .blur: .linear
            case .shadowsHighlights(_, _, _, _, let encoded, _): encoded ? .encoded : .linear
            case .unsharp, .denoise: .encoded
            case .geometric(let step, _):
                switch step {
                case .crop, .rotate, .flip: .none
                case .straighten, .straightenWindow, .resize, .lens: .linear
                }
            case .keep, .resume, .blend: .encoded
            }
        }

        /// How far from an output pixel the stage reads its input, in pixels, and the grid its
        /// blur lays blocks on (a decimated Gaussian's factor, else 1): a window of the image
        /// that reaches this far past a region, its corner on the grid, gives the region the
        /// pixels the whole image gives it. 0 for stages that read the pixel alone; nil for the
        /// geometric ones, which move pixels.
        public var reach: (pixels: Int, grid: Int)? {
            switch self {
            case .blur(let sigma, let kernel, _), .unsharp(let sigma, let kernel, _, _, _, _),
                 .shadowsHighlights(_, _, let sigma, let kernel, _, _):
                // A decimated blur: its coarse taps (3.72 σ) and the block and the interpolation
                // cell on either side of them.
                if let d = DecimatedGaussian.factor(sigma: sigma, kernel: kernel) { return (Int((4 * sigma).rounded(.up)) + 3 * d, d) }
                return (GaussianBlur.taps(sigma: sigma, kernel: kernel).count / 2, 1)
            // 8×8 patches at even columns, their rows every 2 (luma) or 4 (chroma) from a band's
            // start, 8 rows above a multiple of 64: 7 pixels around, on a grid of 4.
            case .denoise: return (8, 4)
            case .geometric: return nil
            case .keep, .resume, .blend: return (0, 1)
            }
        }

        /// Whether the stage makes pixels (rather than routing images).
        public var isPixelStage: Bool {
            switch self {
            case .keep, .resume: false
            default: true
            }
        }

        public var description: String {
            func px(_ v: Double) -> String { NumberFormatting.shortest((v * 1000).rounded() / 1000) }
            // Only below 1 px do the two kernels differ (GaussianBlur.Kernel); from σ 16 px the
            // render blurs on a coarser grid (BlurStage, DecimatedGaussian).
            func sigma(_ v: Double, _ kernel: GaussianBlur.Kernel) -> String {
                let coarse = DecimatedGaussian.factor(sigma: v, kernel: kernel).map { " on a grid \($0)× coarser" }
                return "σ \(px(v)) px" + (kernel == .bandLimited && v < 1 ? " band-limited" : "") + (coarse ?? "")
            }
            switch self {
            case .blur(let s, let kernel, let origin): return "blur \(sigma(s, kernel)) ← \(origin)"
            case .unsharp(let s, let kernel, let amount, let threshold, let luma, let origin):
                return "unsharp \(sigma(s, kernel)) amount \(NumberFormatting.shortest(amount)) threshold \(NumberFormatting.shortest(threshold))\(luma ? " luma" : "") ← \(origin)"
            case .shadowsHighlights(let s, let h, let radius, let kernel, let encoded, let origin):
                return "shadows \(NumberFormatting.shortest(s)) highlights \(NumberFormatting.shortest(h)) from luma blurred \(sigma(radius, kernel))"
                    + (encoded ? ", a gain on encoded values" : "") + " ← \(origin)"
            case .denoise(let luma, let chroma, let detail, let noise, let origin):
                return "denoise luma \(NumberFormatting.shortest(luma)) chroma \(NumberFormatting.shortest(chroma))"
                    + (detail > 0 ? " detail \(NumberFormatting.shortest(detail))" : "")
                    + ", noise " + (noise.map { "σ \(NumberFormatting.shortest($0)) codes" } ?? "measured") + " ← \(origin)"
            case .geometric(let step, let origin):
                return "\(step)\(step.holds.map { " (holds \($0))" } ?? "") ← \(origin)"
            case .keep(let name, let readers): return "keep the image as `\(name)` for \(readers) reader\(readers == 1 ? "" : "s")"
            case .resume(let name): return "read the image kept as `\(name)`"
            case .blend(let with, let mode, let opacity, let origin):
                return "blend `\(with)` on top, \(mode), opacity \(NumberFormatting.shortest(opacity)) ← \(origin)"
            }
        }
    }

    /// One pass over the image: a run of point steps (one `PointProgram`) or a barrier stage.
    public struct Pass: Sendable {
        public var steps: [Step]
        public var barrier: Barrier?

        public init(steps: [Step], barrier: Barrier? = nil) {
            self.steps = steps
            self.barrier = barrier
        }
    }

    /// The runs of point steps before fusion, in order (what most passes rewrite), and the barrier
    /// stages between them (`barriers[i]` sits after `segments[i]`).
    public var segments: [[Step]]
    public var barriers: [Barrier]
    /// The passes over the image after fusion (empty until `FusePointRuns` or `SplitPerStep` ran).
    public var passes: [Pass] = []
    /// The size the photo is decoded (and resampled) to before the first stage.
    public var sourceSize: CanvasSize?
    /// The kernel the photo is resampled with to `sourceSize` when a resize of the recipe asked
    /// for that size (nil: the default, Lanczos 3).
    public var sourceKernel: ResampleKernel?
    /// Whether `sourceSize` is the size the decoder reduces the photo to (`Planner.DecodeReduction`):
    /// decoded at that size, not resampled to it.
    public var sourceIsReducedDecode = false
    /// The size of the rendered image (the last stage's canvas).
    public var outputSize: CanvasSize?
    /// The conversions from the photo's colours into the working space and from it to the
    /// output's (none for sRGB in and out); `InsertSpaceConversions` puts them at the ends.
    public var color = ColorEndpoints()

    public init(segments: [[Step]], barriers: [Barrier] = []) {
        precondition(segments.count == barriers.count + 1)
        self.segments = segments
        self.barriers = barriers
    }

    public init(steps: [Step]) { self.init(segments: [steps]) }

    /// Every point step, in order (the segments joined).
    public var steps: [Step] { segments.flatMap { $0 } }

    /// The plan with `transform` applied to each run of point steps.
    func mapSegments(_ transform: ([Step]) -> [Step]) -> ExecutionPlan {
        var out = self
        out.segments = segments.map(transform)
        return out
    }

    public var description: String {
        if passes.isEmpty {
            var out = ""
            for (i, segment) in segments.enumerated() {
                out += segment.map { "  \(Self.text($0))\n" }.joined()
                if i < barriers.count { out += "  — \(barriers[i]) —\n" }
            }
            return out.isEmpty ? "  (no pixel work)\n" : out
        }
        var out = ""
        for (i, pass) in passes.enumerated() {
            if let barrier = pass.barrier {
                out += barrier.isPixelStage ? "  pass \(i + 1): \(barrier)\n" : "  · \(barrier)\n"
                continue
            }
            // The kernel folds the per-channel steps at either end into its load and store tables.
            let (head, body, tail) = PointProgram.split(pass.steps.map { $0.kernel })
            let steps = pass.steps
            out += "  pass \(i + 1):\n"
            // A pass reads the decoder's codes when only pixel moves (crop, rotate, flip) come
            // before it, or it reads an image kept before any other work (`BranchFromSource`),
            // and writes the encoder's when only moves come after it; passes between other
            // barrier stages read and write float rows.
            var first = passes[..<i].allSatisfy { $0.barrier.map { $0.space == WorkingSpace.none } ?? true }
            if i > 0, case .resume(let name)? = passes[i - 1].barrier,
               let k = passes.firstIndex(where: { if case .keep(let kept, _)? = $0.barrier { kept == name } else { false } }) {
                first = passes[..<k].allSatisfy { $0.barrier.map { $0.space == WorkingSpace.none } ?? false }
            }
            let last = passes[(i + 1)...].allSatisfy { $0.barrier.map { $0.space == WorkingSpace.none } ?? true }
            let headText = steps[..<head.count].map { Self.text($0) }.joined(separator: ", ")
            out += first ? "    load table (8-bit code →): " + (head.isEmpty ? "code/255" : headText) + "\n"
                : head.isEmpty ? "    load floats\n" : "    load floats, then per pixel: " + headText + "\n"
            if !body.isEmpty {
                out += "    per pixel: " + steps[head.count..<(head.count + body.count)].map { Self.text($0) }.joined(separator: ", ") + "\n"
            }
            let tailText = steps[(head.count + body.count)...].map { Self.text($0) }.joined(separator: ", ")
            out += last ? "    store table (→ 8-bit code): " + (tail.isEmpty ? "×255" : tailText) + "\n"
                : tail.isEmpty ? "    store floats\n" : "    per pixel: " + tailText + ", then store floats\n"
            if first && last && PointProgram.cachesColours(pass.steps.map { $0.kernel }) {
                out += "    colour cache (8-bit photos of a megapixel or more): each thread keeps the codes of the colours it rendered; the steps run on the others\n"
            }
        }
        return out
    }

    /// Float's own shortest text (`1.1892071`, not the double's 1.1892070770263672).
    static func short(_ f: Float) -> String {
        let s = "\(f)"
        return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }

    static func text(_ s: Step) -> String {
        let kernel: String
        switch s.kernel {
        case .toLinear: return "→ linear"
        case .toEncoded: return "→ encoded"
        case .matrix(let m): kernel = "matrix[" + m.map(short).joined(separator: " ") + "]"
        case .power(let p): kernel = "power \(short(p))"
        case .levels: kernel = "levels"
        case .sigmoid: kernel = "sigmoid"
        case .vibrance(let a): kernel = "vibrance \(short(a))"
        case .colorMixer: kernel = "colour mixer (OKLCh)"
        case .colorGrade: kernel = "colour grading (OKLab)"
        case .clip(let lo, let hi): kernel = "clip \(short(lo))…\(short(hi))"
        case .curves: kernel = "curves"
        case .saveInput: kernel = "mask: keep input"
        case .maskMix(let shape, let invert, let amount):
            let name = shape.name
            kernel = "mask: mix by \(name)\(invert ? " inverted" : "") amount \(short(amount))"
        case .lut(let t, let tetra, let amount): kernel = "lut \(t.kind == .threeD ? "3D" : "1D") \(t.size) \(tetra ? "tetrahedral" : "trilinear") amount \(short(amount))"
        case .vignette(let amount, _, _, _, _, _, let encoded):
            kernel = "vignette \(short(amount)) (positional\(encoded ? ", a gain on encoded values" : ""))"
        case .colorTransform(let t): kernel = "colour transform: \(t.name)"
        case .radialGain(let terms, let divide, _, _, _):
            kernel = "lens vignetting \(divide ? "÷" : "×") (1 + " + terms.enumerated().map { "\(short($0.element))·r\(["²", "⁴", "⁶", "⁸", "¹⁰"][min($0.offset, 4)])" }.joined(separator: " + ") + ") (positional)"
        }
        return "\(kernel) [\(s.space.rawValue)] ← \(s.origin)"
    }
}

/// A recipe the engine cannot render (yet): names the stage and why.
public struct PlanError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var range: SourceRange?
    /// A file the plan reads (a LUT) would take more memory than the render's budget: the render
    /// fails as one over `--max-memory` does, not as a recipe with errors.
    public var overBudget = false
    public init(_ message: String, range: SourceRange?, overBudget: Bool = false) {
        self.message = message
        self.range = range
        self.overBudget = overBudget
    }
    public var description: String { message }
}
