import RecipeCore
import RecipeSession
import Testing

/// `--max-memory`'s sizes, the default budget, and how an estimate names what it is made of.
@Suite("memory budget")
struct MemoryBudgetTests {
    @Test("sizes are binary, with or without i and B, in any case")
    func parsing() {
        let cases: [(String, Int?)] = [
            ("512M", 512 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29), ("800MB", 800 << 20), ("4096k", 4 << 20),
            ("1t", 1 << 40), (" 64 MiB ", 64 << 20), ("1073741824", 1 << 30),
            ("", nil), ("G", nil), ("-1G", nil), ("0", nil), ("2X", nil), ("1.5.2G", nil), ("nan", nil), ("1e30G", nil),
        ]
        for (text, bytes) in cases {
            #expect(MemoryBudget(argument: text)?.bytes == bytes, "\(text)")
        }
    }

    @Test("the default is a third of the memory there is, and apply's jobs share it")
    func standard() {
        let budget = MemoryBudget.standard
        #expect(budget.bytes == MemoryBudget.availableBytes / 3)
        #expect(!budget.given)
        var shared = MemoryBudget(bytes: 8 << 30)
        shared.jobs = 2
        #expect(shared.perRender == 4 << 30)
        #expect(shared.explained == "4 GiB (8 GiB for 2 photos at once; --max-memory 8 GiB)")
    }

    @Test("byte counts read as people read them")
    func text() {
        #expect(MemoryBudget.text(900) == "900 bytes")
        #expect(MemoryBudget.text(620 << 10) == "620 KiB")
        #expect(MemoryBudget.text(43_000_000) == "41 MiB")
        #expect(MemoryBudget.text(3 << 29) == "1.5 GiB")
        #expect(MemoryBudget.text(8 << 30) == "8 GiB")
    }

    @Test("stages of one op are named together; a refusal names the largest and the option")
    func refusal() {
        var estimate = RenderEstimate()
        estimate.add(RenderEstimate.processPart, RenderEstimate.processBytes)
        for stage in 1...256 { estimate.add("blur (stage \(stage))", 1 << 20) }
        estimate.add("rotate (stage 300)", 300 << 20)
        estimate.add("branch point `base` (rows kept for its readers)", 2 << 20)
        let largest = estimate.largest(2)
        #expect(largest.map(\.what) == ["rotate (stage 300)", "256 blur stages (1–256)"])
        #expect(largest.map(\.bytes) == [300 << 20, 256 << 20])
        #expect(estimate.bytes == RenderEstimate.processBytes + (558 << 20))
        let error = estimate.refusal(photo: "IMG_1.jpg", recipe: "look.recipe.yaml", budget: MemoryBudget(bytes: 256 << 20))
        #expect(error.kind == .overBudget)
        #expect(error.path == "IMG_1.jpg")
        for words in ["look.recipe.yaml", "about \(MemoryBudget.text(estimate.bytes))", "memory budget of 256 MiB (--max-memory 256 MiB)",
                      "rotate (stage 300) 300 MiB",
                      "256 blur stages (1–256) 256 MiB", "--max-memory 700M"] {
            #expect(error.reason.contains(words), "\(error.reason) lacks \(words)")
        }
        #expect(!error.reason.contains("the process"), "the process's own share is no stage to blame: \(error.reason)")
    }
}
