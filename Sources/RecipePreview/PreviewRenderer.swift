import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeOptimizer
import RecipeSession
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the page asks to see of a photo.
package struct PreviewRequest: Sendable, Equatable {
    /// false: the photo alone (the "before" side).
    package var recipe = true
    /// The page's param values (`--set` for one render).
    package var overrides: [String: String] = [:]
    /// Stages (1-based list positions) turned off on the page, not in the file.
    package var disabled: Set<Int> = []
    /// Render only up to this stage (the stage strip's thumbnails and clicks).
    package var upTo: Int?
    package var size: RenderSize
    /// A region of the full-size render, for the 1:1 view.
    package var region: Region?

    package init(size: RenderSize) { self.size = size }
}

/// A rectangle in pixels of the full-size (upright) render.
package struct Region: Sendable, Equatable {
    package var x, y, width, height: Int
    package init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }

    /// The part of it inside a `w`×`h` image (nil when none is).
    func clamped(width w: Int, height h: Int) -> Region? {
        let x0 = max(0, min(x, w)), y0 = max(0, min(y, h))
        let x1 = max(x0, min(x + width, w)), y1 = max(y0, min(y + height, h))
        return x1 > x0 && y1 > y0 ? Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// A rendered JPEG.
package struct PreviewImage: Sendable {
    package var jpeg: [UInt8]
    package var width: Int
    package var height: Int
    package var milliseconds: Double
    package var warnings: [String]
    /// How a region was rendered, for the page to say (ASCII: it travels in a header).
    package var note: String?
    /// The size of the full-size render (what a region's coordinates refer to).
    package var fullWidth = 0
    package var fullHeight = 0
}

package enum PreviewResult: Sendable {
    case image(PreviewImage)
    /// The recipe has errors: every diagnostic, as `recipe check` prints it.
    case diagnostics(String)
    /// The photo could not be rendered (it fails to decode, …), or the page's change cannot apply.
    case failed(String)
    /// Superseded by a newer render.
    case cancelled
}

/// Renders for the preview through the same path as `recipe render`: the recipe checked by
/// `RecipeChecker`, planned by `RecipePlanning.plan`, run by `RenderJob` (which writes the JPEG into
/// a private scratch folder; the bytes are read back and the file removed). The only difference is
/// where the rows come from: `CachedPhoto` keeps the decoded photo.
package struct PreviewRenderer: Sendable {
    package let recipePath: String
    package let scratch: String
    private static let counter = Atomic<Int>(0)

    package init(recipePath: String, scratch: String) {
        self.recipePath = recipePath
        self.scratch = scratch
    }

    /// Checks the recipe's text as `recipe check` would (with the page's param values).
    package func check(_ text: String, overrides: [String: String] = [:], photo: CachedPhoto? = nil) -> CheckedRecipe {
        var options = CheckOptions()
        options.overrides = overrides
        if let photo { options.sourceSize = CanvasSize(width: photo.info.uprightSize.width, height: photo.info.uprightSize.height) }
        return RecipeChecker.check(SourceFile(path: recipePath, text: text), options: options)
    }

    /// Every diagnostic of `checked`, each exactly as `recipe check` prints it (no colour).
    package static func diagnosticsText(_ checked: CheckedRecipe) -> String {
        var lines = checked.diagnostics.map { DiagnosticPrinter.render($0, source: checked.file) }
        if checked.isForeign { lines.append("\(checked.file.path): foreign adjustment data; this build cannot render it") }
        return lines.joined(separator: "\n")
    }

    package func render(_ request: PreviewRequest, text: String, photo: CachedPhoto, cancel: CancelFlag) -> PreviewResult {
        let started = Self.now()
        var planned: PlannedRender?
        var note: String?
        var full = photo.info.uprightSize
        do {
            if request.recipe {
                var checked = check(text, overrides: request.overrides, photo: photo)
                guard !checked.hasErrors, checked.graph != nil else { return .diagnostics(Self.diagnosticsText(checked)) }
                if !request.disabled.isEmpty || request.upTo != nil {
                    var edited = try Sidecar(editing: text, path: recipePath)
                    for stage in request.disabled.sorted() where stage <= edited.checked.stages.count {
                        try edited.setEnabled(false, stage: stage)
                    }
                    if let upTo = request.upTo { try edited.keepFirst(upTo) }
                    checked = check(edited.text, overrides: request.overrides, photo: photo)
                    guard !checked.hasErrors else { return .failed(Self.diagnosticsText(checked)) }
                }
                let size = checked.graph!.nodes[checked.graph!.output].size
                full = (size.width, size.height)
                let geometry = PhotoGeometry(photo.info, supported: photo.supportedScaleDenominators)
                var plan = try RecipePlanning.plan(checked.graph!, output: checked.output, recipe: recipePath, photo: photo.path,
                                                   info: photo.info, geometry: geometry, size: request.region == nil ? request.size : .full,
                                                   fuse: true)
                if let region = request.region {
                    note = try Self.cut(&plan, to: region, photo: photo.info.uprightSize, output: full)
                }
                planned = plan
            }
        } catch let error as SidecarEditError {
            let lines = error.diagnostics.map { DiagnosticPrinter.render($0, source: error.file) }
            return .failed(([error.what + " would break the recipe:"] + lines).joined(separator: "\n"))
        } catch {
            return .failed("\(error)")
        }
        let output = scratch + "/render-\(Self.counter.wrappingAdd(1, ordering: .relaxed).newValue).jpg"
        var job = RenderJob(input: photo.path, output: output, size: request.region == nil ? request.size : .full)
        if let planned { job.take(planned) }
        // A region view decodes the photo at full size: those rows are not kept.
        if request.region == nil { job.openDecoder = photo.decoder(cancel: cancel) }
        defer { unlink(output) }
        do {
            let outcome = try job.run()
            let bytes = try InputFile.readAll(output, limit: 1 << 30)
            return .image(PreviewImage(jpeg: bytes, width: outcome.width, height: outcome.height,
                                       milliseconds: Self.now() - started, warnings: outcome.warnings.map(\.description), note: note,
                                       fullWidth: full.width, fullHeight: full.height))
        } catch is PreviewCancelled {
            return .cancelled
        } catch {
            return .failed("\(error)")
        }
    }

    /// Makes a full-size plan render only `region`. When every stage is a point pass that reads no
    /// pixel position, the crop goes first and the recipe runs on the region alone (the decoder
    /// still reads the whole photo: a JPEG is decoded row by row); otherwise the full render is cut
    /// at the end, since a blur, a vignette or a geometric stage needs the pixels around it.
    static func cut(_ plan: inout PlannedRender, to region: Region, photo: (width: Int, height: Int),
                    output: (width: Int, height: Int)) throws -> String {
        let pointOnly = plan.stages.allSatisfy {
            if case .point(let programs) = $0 { return !programs.contains { $0.steps.contains(where: \.readsPosition) } }
            return false
        }
        if pointOnly, plan.finalSize == nil, let r = region.clamped(width: photo.width, height: photo.height) {
            plan.stages.insert(.barrier(.geometric(.crop(x: r.x, y: r.y, width: r.width, height: r.height), origin: "preview region")), at: 0)
            return "the recipe ran on these \(r.width)x\(r.height) pixels only (crop first: it has only point stages)"
        }
        guard let r = region.clamped(width: output.width, height: output.height) else {
            throw ImageError(.refused, path: "region", "lies outside the \(output.width)x\(output.height) render")
        }
        plan.stages.append(.barrier(.geometric(.crop(x: r.x, y: r.y, width: r.width, height: r.height), origin: "preview region")))
        return "the whole photo was rendered at full size and cut (the recipe has stages that read neighbours, positions or move pixels)"
    }

    /// Milliseconds on the monotonic clock.
    package static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
}
