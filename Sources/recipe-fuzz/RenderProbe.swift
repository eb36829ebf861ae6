import Glibc
import RecipeCodecs
import RecipeCore
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer
import RecipeRender
import RecipeSession

/// Renders every input without errors the way `recipe render` does (the same planning and
/// `RenderJob`, on the CLI's default 2 threads, to a JPEG) on a small photo, and measures what each
/// render took: its time, and its peak memory as the growth of the process's resident high-water
/// mark (Linux: `VmHWM`, reset before each render by writing `5` to `/proc/self/clear_refs`, after
/// `malloc_trim` hands back the heap the previous input left). The render's own estimate
/// (`RenderEstimate`) is recorded beside it, for the photo and for a nominal 6000×4000 one.
///
/// ```swift
/// let probe = try RenderProbe(folder: "/tmp/recipe-fuzz-1", size: (96, 64), budget: .standard)
/// let outcome = probe.render(input)     // .rendered, .refused (over the budget) or .notRendered
/// ```
///
/// What is judged (`FuzzRun.runOne`): a render above the budget, one that took more than its
/// estimate allows (`estimateLow`), one slower than its estimated work allows (`timeLimit`).
final class RenderProbe {
    /// What rendering one input came to.
    struct Outcome {
        enum Status: Equatable {
            case rendered
            /// Refused before decoding: its estimate is above the budget.
            case refused
            /// Not rendered, and why (an error at the probe's size, a plan this build refuses, a
            /// render that failed).
            case notRendered(String)
            /// The render threw: a bug unless the input explains it.
            case failed(String)
            /// Not run here: its estimated work is above `maximumWork` (a huge enlargement).
            case tooMuchWork
        }
        var status: Status
        var seconds = 0.0
        /// The growth of the resident high-water mark over the render, in bytes (0 unless rendered).
        var peakBytes = 0
        /// The render's estimate for the probe's photo, without the process's own part.
        var estimateBytes = 0
        /// Its rough work, in pixel-ops.
        var work = 0.0
        /// The estimate of a render of the same input on a 6000×4000 photo (nil when it cannot be planned there).
        var nominalBytes: Int?
    }

    let folder: String
    let photo: String
    let nominal: String
    let output: String
    let size: (width: Int, height: Int)
    let budget: MemoryBudget
    let threads = 2
    /// Whether `/proc/self/clear_refs` resets the high-water mark here (else peaks are since start).
    let resets: Bool

    /// Writes the probe's photo (`size`, a gradient with noise) and the nominal 6000×4000 one
    /// (flat, only its header is read) into `folder`.
    init(folder: String, size: (width: Int, height: Int), budget: MemoryBudget) throws {
        self.folder = folder
        self.size = size
        self.budget = budget
        photo = folder + "/photo.jpg"
        nominal = folder + "/nominal.jpg"
        output = folder + "/out.jpg"
        try Self.writePhoto(photo, width: size.width, height: size.height, noise: true)
        try Self.writePhoto(nominal, width: 6000, height: 4000, noise: false)
        resets = FuzzSystem.resetPeakResident()
    }

    /// The options the input is checked with at the probe's size (file references are checked
    /// for shape only, as the oracle does).
    func options(size: CanvasSize) -> CheckOptions {
        var o = CheckOptions()
        o.checkFilesExist = false
        o.sourceSize = size
        return o
    }

    /// Renders estimated at more work than this are not run (their memory estimate still is): a
    /// recipe may ask for an output of 100,000 px a side, which is minutes of encoding, not a bug.
    static let maximumWork = 1e9

    /// The time a render of `work` pixel-ops may take: 1 s, and more only in proportion to its
    /// work, at 100 M pixel-ops a second (the bundled recipes run at 1.5–4 G a second on photo24).
    static func timeLimit(work: Double) -> Double { 1 + work / 1e8 }

    /// The most a render estimated at `estimate` bytes (the process's own part aside) may grow
    /// the resident peak by: 1.5 times the estimate, and 8 MiB for the allocator's arenas and the
    /// pages a first render of a kind touches.
    static func allowedPeak(estimate: Int) -> Int { estimate * 3 / 2 + (8 << 20) }

    /// A LUT for any file a recipe names: the identity of a 2³ lattice, so `lut` stages render.
    static let identityLUT = Array("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n".utf8)

    func render(_ input: [UInt8]) -> Outcome {
        let nominalBytes = estimate(input, photo: nominal, size: CanvasSize(width: 6000, height: 4000))?.bytes
        let canvas = CanvasSize(width: size.width, height: size.height)
        let checked = RecipeChecker.check(SourceFile(path: Oracle.path, bytes: input), options: options(size: canvas))
        guard let graph = checked.graph, !checked.hasErrors else {
            return Outcome(status: .notRendered("has errors at \(canvas)"), nominalBytes: nominalBytes)
        }
        let job: RenderJob, estimate: RenderEstimate
        do {
            (job, estimate) = try prepare(graph, photo: photo)
        } catch {
            return Outcome(status: .notRendered("\(error)"), nominalBytes: nominalBytes)
        }
        var outcome = Outcome(status: .rendered, estimateBytes: max(0, estimate.bytes - RenderEstimate.processBytes), work: estimate.work,
                              nominalBytes: nominalBytes)
        if estimate.work > Self.maximumWork {
            outcome.status = .tooMuchWork
            return outcome
        }
        FuzzSystem.trimHeap()
        if resets { _ = FuzzSystem.resetPeakResident() }
        let before = FuzzSystem.residentStatus()
        let t0 = FuzzSystem.now()
        do {
            _ = try job.run()
        } catch let error as ImageError where error.kind == .overBudget {
            outcome.status = .refused
        } catch {
            outcome.status = .failed("\(error)")
        }
        outcome.seconds = FuzzSystem.now() - t0
        if outcome.status == .rendered, let before, let after = FuzzSystem.residentStatus() {
            outcome.peakBytes = max(0, after.peak - before.current) * 1024
        }
        return outcome
    }

    /// The estimate of a render of `input` on `photo` (of `size`), or nil when it has errors or
    /// cannot be planned there.
    func estimate(_ input: [UInt8], photo: String, size: CanvasSize) -> RenderEstimate? {
        let checked = RecipeChecker.check(SourceFile(path: Oracle.path, bytes: input), options: options(size: size))
        guard let graph = checked.graph, !checked.hasErrors else { return nil }
        return try? prepare(graph, photo: photo).estimate
    }

    /// The job `recipe render` would run for `graph` on `photo`, and its estimate.
    func prepare(_ graph: FilterGraph, photo: String) throws -> (job: RenderJob, estimate: RenderEstimate) {
        let decoder = try ImageDecoders.open(photo)
        let geometry = PhotoGeometry(decoder.info, supported: decoder.supportedScaleDenominators)
        let color = try PhotoColor(photo: photo, info: decoder.info, output: .keep, intent: .relative)
        let planned = try RecipePlanning.plan(graph, size: .full, fuse: true, readFile: { _ in Self.identityLUT }, photo: geometry,
                                              color: RecipePlanning.colorEnds(color, graph))
        var job = RenderJob(input: photo, output: output)
        job.take(planned)
        job.color = color
        job.threads = threads
        job.memoryBudget = budget
        return (job, try job.estimate(decoder, color: color))
    }

    /// A JPEG of `width`×`height`: a gradient with noise (so every stage has something to do), or
    /// flat grey.
    static func writePhoto(_ path: String, width: Int, height: Int, noise: Bool) throws {
        final class Pattern: RowSource {
            let width: Int, height: Int, noise: Bool
            let format = PixelFormat(.rgb, .uint8)
            var next = 0
            var random = Xoshiro(seed: 24)
            init(width: Int, height: Int, noise: Bool) { (self.width, self.height, self.noise) = (width, height, noise) }
            func readRows(into buffer: PixelBuffer) throws -> Int {
                let n = min(buffer.rowCapacity, height - next)
                for r in 0..<n {
                    let row = buffer.row(r).assumingMemoryBound(to: UInt8.self), y = next + r
                    for x in 0..<width {
                        let base = noise ? (x * 255 / max(1, width - 1) + y * 128 / max(1, height - 1)) / 2 : 128
                        for c in 0..<3 { row[3 * x + c] = UInt8(clamping: base + (noise ? random.below(48) - 24 + 20 * c : 0)) }
                    }
                }
                buffer.rowCount = n
                buffer.originY = next
                next += n
                return n
            }
        }
        let source = Pattern(width: width, height: height, noise: noise)
        let file = try AtomicOutputFile(path: path)
        let encoder = try ImageEncoders.open(.jpeg, handle: file.handle, path: path, width: width, height: height,
                                             pixels: source.format, metadata: ImageMetadata(), encoding: OutputEncoding())
        try StripPipeline.run(source: source, sink: encoder)
        try file.commit()
    }
}
