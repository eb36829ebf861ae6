import Testing
import TestSupport
@testable import RecipeLens

/// Looking profiles up by the name a user writes, and the reasons a match gives when it takes none.
@Suite struct LensDatabaseTests {
    @Test("a profile by name: any case and spacing, maker optional, the variant for the camera's crop", LensTestDatabase.required)
    func byName() throws {
        let db = try LensTestDatabase.get()
        #expect(db.profiles(named: "nikon af-s  nikkor 50mm f/1.8g").map(\.model) == ["Nikon AF-S Nikkor 50mm f/1.8G"])
        #expect(db.profiles(named: "E PZ 18-105mm f/4 G OSS").count == 1)
        #expect(db.profiles(named: "Sony E PZ 18-105mm f/4 G OSS").count == 1)
        #expect(db.profile(named: "E 10-18mm f/4 OSS", cropFactor: 1.534)?.cropFactor == Float(1.534).asDouble)
        #expect(db.profile(named: "E 10-18mm f/4 OSS", cropFactor: 1)?.cropFactor == 1)
        #expect(db.profiles(named: "Sigma 19mm F2.8").isEmpty)
        let guesses = db.suggestions(for: "Sigma 19mm F2.8")
        #expect(guesses.contains("Sigma 19mm f/2.8 DN") && guesses.contains("Sigma 19mm f/2.8 EX DN"), "\(guesses)")
    }

    @Test("no match says why: manual lens, unknown ID, another maker's lens, a lens that does not fit", LensTestDatabase.required)
    func reasons() throws {
        let db = try LensTestDatabase.get()
        func reason(_ q: LensQuery) -> LensMatch.Unmatched.Reason? {
            if case .none(let n) = db.match(q) { return n.reason }
            return nil
        }
        guard case .manualLens? = reason(LensQuery(cameraMake: "SONY", cameraModel: "ILCE-6300", lensModel: "Manual lens")) else {
            Issue.record("'Manual lens' is a manual lens"); return
        }
        guard case .manualLens? = reason(LensQuery(cameraMake: "SONY", cameraModel: "ILCE-6300", lensID: 65535)) else {
            Issue.record("Sony's lens ID 65535 is no lens the camera names"); return
        }
        guard case .unknownLensID(195)? = reason(LensQuery(cameraMake: "SONY", cameraModel: "SLT-A57", lensModel: "(195)")) else {
            Issue.record("'(195)' is an unknown ID"); return
        }
        guard case .makerNotStated(let meike)? = reason(LensQuery(cameraMake: "SONY", cameraModel: "ILCE-6000", lensModel: "E 35mm F1.7", focalLength: 35)),
              meike.map(\.maker) == ["Meike"] else {
            Issue.record("a maker-less name is not taken for another maker's lens"); return
        }
        guard case .doesNotFit? = reason(LensQuery(cameraMake: "Canon", cameraModel: "Canon EOS 5D Mark III", lensModel: "Canon EF-S 10-22mm f/3.5-4.5 USM")) else {
            Issue.record("an EF-S lens does not fit a full-frame EF body"); return
        }
        guard case .noLensName? = reason(LensQuery(cameraMake: "Canon", cameraModel: "Canon EOS 6D")) else {
            Issue.record("no lens named"); return
        }
    }

    @Test("an ambiguous match gives its candidates and no profile", LensTestDatabase.required)
    func ambiguous() throws {
        let db = try LensTestDatabase.get()
        let m = db.match(LensQuery(cameraMake: "Canon", cameraModel: "Canon EOS R6 Mark II", lensModel: "EF24-105mm f/4L IS USM", focalLength: 50))
        guard case .ambiguous(let a) = m else { Issue.record("\(m)"); return }
        #expect(m.profile == nil)
        #expect(Set(a.candidates.map(\.cropFactor)).count == 2)
        #expect(a.reason.contains("crop factor is unknown"))
    }

    @Test("one lens spelled two ways or measured on two sensors is one lens", LensTestDatabase.required)
    func sameLens() throws {
        let db = try LensTestDatabase.get()
        let fifty = db.lenses.filter { $0.model.hasPrefix("Nikon AF-S Nikkor 50mm f/1.8G") }
        #expect(fifty.count == 2)
        #expect(LensDatabase.sameLens(fifty).count == 1)
        let tamron = db.lenses.filter { $0.model.lowercased().hasPrefix("tamron af 18-270mm f/3.5-6.3 di ii vc pzd") }
        #expect(tamron.count == 2 && LensDatabase.sameLens(tamron).count == 1)
    }
}

extension Float {
    var asDouble: Double { Double(self) }
}
