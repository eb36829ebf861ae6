import Foundation
import RecipeCodecs
import RecipeCore
import RecipeSession
import Testing
import TestSupport

/// One render request, one planner: what every front end now shares. The half-size develop seen
/// by `explain` and checked against its formula, the budget reaching `edit`, LibRaw and the
/// header refusal of a raw that declares too much.
@Suite("one planner: the half-size develop, the budget everywhere")
struct RenderPlanTests: CLITest {
    static let dng = TestPaths.fixture("raw/kodim03-crop.dng")
    static let half = "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - develop: {demosaic: half-size}\n  - exposure: 0.4\n"

    @Test("explain sizes a half-size develop as the render makes it: every node at half the sensor, the develop said so")
    func explainHalfSize() throws {
        let dir = TestPaths.temporaryDirectory("plan-explain-half")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipe = dir.appendingPathComponent("half.recipe.yaml").path
        try write(Self.half, recipe)
        let (w, h) = try RawDecoder(path: Self.dng, options: DecodeOptions()).info.uprightSize
        let text = try ok(["explain", recipe, "--photo", Self.dng])
        let source = try #require(text.split(separator: "\n").first { $0.hasPrefix("#0 source") }, "\(text)")
        #expect(source.hasSuffix("\((w + 1) / 2)×\((h + 1) / 2)"), "\(source) (the sensor is \(w)×\(h))")
        #expect(text.contains("#d3 demosaic        \((w + 1) / 2)×\((h + 1) / 2)") && text.contains("half size: each 2×2 cell one pixel, its greens averaged"), "\(text)")
        // The memory estimate is for the half-size render too (LibRaw's half-size image, no demosaic).
        #expect(text.contains("memory: ~"), "\(text)")
    }

    /// The greens of a cell averaged: spread_greens.py moves each cell's two greens apart by
    /// ±400 codes (of 16383) keeping their mean, so the half-size develops of both mosaics are
    /// one picture; a develop that takes one green of the cell is ~1,600 16-bit codes off.
    @Test("the half-size develop averages each cell's greens: a mosaic with its greens spread apart, same means, develops to the same picture (develop half-size and a display size)",
          Requirement.python("numpy"))
    func halfSizeGreens() throws {
        let dir = TestPaths.temporaryDirectory("plan-half-greens")
        defer { try? FileManager.default.removeItem(at: dir) }
        let spread = dir.appendingPathComponent("spread.dng").path
        let r = try ExternalTool.run("/usr/bin/env", ["python3", TestPaths.packageRoot.appendingPathComponent("Tests/Tools/spread_greens.py").path,
                                                      Self.dng, spread, "--spread", "400"])
        #expect(r.status == 0, "spread_greens.py: \(r.stderr)")
        let half = dir.appendingPathComponent("half.recipe.yaml").path
        try write(Self.half, half)
        let neutral = TestPaths.recipes.appendingPathComponent("raw-neutral.recipe.yaml").path
        // 64 px from a 256 px sensor: decoded at half size (each cell a pixel), then resampled.
        for (recipe, size) in [(half, "full"), (neutral, "64")] {
            let a = dir.appendingPathComponent("a.png").path, b = dir.appendingPathComponent("b.png").path
            _ = try ok(["render", Self.dng, "--recipe", recipe, "--size", size, "-o", a])
            _ = try ok(["render", spread, "--recipe", recipe, "--size", size, "-o", b])
            let x = try decodedSamples(a), y = try decodedSamples(b)
            #expect(x.bits == 16 && x.values.count == y.values.count)
            let largest = zip(x.values, y.values).map { abs($0 - $1) }.max() ?? 0
            // float32 sums of the two greens round differently by an ulp: a few 16-bit codes at most.
            #expect(largest <= 4, "\(URL(fileURLWithPath: recipe).lastPathComponent) at \(size): \(largest) 16-bit codes apart")
        }
    }

    @Test("edit refuses a LUT over the budget before writing the sidecar or decoding the photo: exit 2, nothing written; --no-render writes it")
    func editLUTOverBudget() throws {
        let dir = TestPaths.temporaryDirectory("plan-edit-lut")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = dir.appendingPathComponent("p.jpg").path
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path, toPath: photo)
        // The header says 200³ entries (about 180 MiB to read): the rows are never read.
        try write("LUT_3D_SIZE 200\n0 0 0\n", dir.appendingPathComponent("big.cube").path)
        let r = try recipe(["edit", photo, "--stage", "lut: {file: big.cube}", "--max-memory", "64M"])
        let said = r.stderr
        #expect(r.status == 2, "exit \(r.status): \(said)")
        #expect(said.contains("64 MiB") && said.contains("--max-memory") && said.contains("not written"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: photo + ".recipe.yaml"), "the sidecar was written")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("p.edited.jpg").path))
        _ = try ok(["edit", photo, "--stage", "lut: {file: big.cube}", "--max-memory", "64M", "--no-render"])
        #expect(FileManager.default.fileExists(atPath: photo + ".recipe.yaml"))
        // The sidecar's render holds the LUT to the budget as `render --recipe` does: refused from its header.
        let sidecar = try recipe(["render", photo, "--max-memory", "64M"])
        let refused = sidecar.stderr
        #expect(sidecar.status == 1 && refused.contains("a 3D LUT of 200³ needs about") && refused.contains("--max-memory"), "exit \(sidecar.status): \(refused)")
    }

    /// A DNG whose raw IFD says 60000×60000 (the fixture's tags rewritten; its pixel data stays
    /// 256×192): refused from its header, by --max-pixels, and with that raised by the budget,
    /// without LibRaw unpacking anything.
    @Test("a DNG declaring 60000×60000 pixels is refused from its header under --max-memory 256M, peak RSS under 100 MB",
          Requirement.file("/usr/bin/time"))
    func hugeHeader() throws {
        let dir = TestPaths.temporaryDirectory("plan-huge-dng")
        defer { try? FileManager.default.removeItem(at: dir) }
        let huge = dir.appendingPathComponent("huge.dng").path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.dng)))
        #expect(Self.setSize(&bytes, width: 60000, height: 60000) > 0, "no CFA image found in the fixture")
        try Data(bytes).write(to: URL(fileURLWithPath: huge))
        for extra in [[], ["--max-pixels", "4000000000"]] {
            let out = dir.appendingPathComponent("out.jpg").path
            let r = try ExternalTool.run("/usr/bin/time", ["-f", "%M", TestPaths.recipeBinary, "render", huge, "--recipe",
                                                           TestPaths.recipes.appendingPathComponent("raw-neutral.recipe.yaml").path,
                                                           "--max-memory", "256M", "-o", out] + extra)
            let said = r.stderr
            #expect(r.status == 1, "\(extra): exit \(r.status): \(said)")
            if extra.isEmpty {
                #expect(said.contains("60000×60000") && said.contains("over the limit"), "\(said)")
            } else {
                // 60000 × 60000 × 2 bytes of mosaic: 6.7 GiB before anything else.
                #expect(said.contains("over the memory budget of 256 MiB (--max-memory 256 MiB)") && said.contains("decoding huge.dng"), "\(said)")
            }
            let kib = try #require(said.split(separator: "\n").last.flatMap { Int($0) }, "no peak RSS: \(said)")
            #expect(kib * 1024 < 100_000_000, "\(extra): peak RSS \(kib) KiB")
            #expect(!FileManager.default.fileExists(atPath: out))
            testNote("60000×60000 DNG header \(extra.isEmpty ? "" : "with --max-pixels raised "): refused, peak RSS \(kib / 1024) MiB")
        }
    }

    @Test("LibRaw's allocation limit is the render's budget: a request's job hands the decoder --max-memory (or its share in apply), not LibRaw's 2 GiB")
    func libRawLimit() throws {
        for (budget, jobs, mib) in [("256M", 1, 256), ("1G", 2, 512), ("8G", 1, 8192)] {
            var request = RenderRequest(photo: Self.dng)
            request.recipes = [RenderRequest.Recipe(path: TestPaths.recipes.appendingPathComponent("raw-neutral.recipe.yaml").path)]
            request.budget = MemoryBudget(argument: budget)!
            request.budget.jobs = jobs
            let job = try RenderPlanner.plan(request).job(output: "/nonexistent/out.jpg")
            let decoder = try RawDecoder(path: Self.dng, options: job.decode)
            #expect(decoder.libRawLimit == UInt32(mib), "--max-memory \(budget) for \(jobs) job(s): LibRaw gets \(decoder.libRawLimit) MiB")
        }
        // Below 64 MiB LibRaw cannot unpack even a small raw: the floor.
        var small = DecodeOptions()
        small.maxRawMemory = 16 << 20
        #expect(RawDecoder.libRawLimitMB(small) == 64)
    }

    /// Rewrites ImageWidth and ImageLength of every CFA IFD (PhotometricInterpretation 32803) of
    /// a little-endian TIFF in place; returns how many IFDs it changed.
    static func setSize(_ b: inout [UInt8], width: Int, height: Int) -> Int {
        func u16(_ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        func put(_ o: Int, _ type: Int, _ v: Int) {
            b[o] = UInt8(v & 255); b[o + 1] = UInt8(v >> 8 & 255)
            if type == 4 { b[o + 2] = UInt8(v >> 16 & 255); b[o + 3] = UInt8(v >> 24 & 255) }
        }
        var todo = [u32(4)], seen = Set<Int>(), changed = 0
        while let ifd = todo.popLast() {
            guard ifd > 0, ifd + 2 < b.count, seen.insert(ifd).inserted else { continue }
            let n = u16(ifd)
            var entries: [Int: (type: Int, count: Int, at: Int)] = [:]
            for k in 0..<n {
                let e = ifd + 2 + 12 * k
                entries[u16(e)] = (u16(e + 2), u32(e + 4), e + 8)
            }
            if let p = entries[262], u16(p.at) == 32803, let w = entries[256], let h = entries[257] {
                put(w.at, w.type, width)
                put(h.at, h.type, height)
                changed += 1
            }
            if let sub = entries[330] {
                let at = sub.count == 1 ? sub.at : u32(sub.at)
                todo += (0..<sub.count).map { u32(at + 4 * $0) }
            }
            todo.append(u32(ifd + 2 + 12 * n))
        }
        return changed
    }
}
