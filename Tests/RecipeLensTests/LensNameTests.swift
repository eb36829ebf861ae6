import Testing
@testable import RecipeLens

/// The name parser takes the spellings the issue cites apart into the same pieces.
@Suite struct LensNameTests {
    @Test("f/2D and f/2.0D are one aperture and the same words")
    func nikonApertures() {
        let exif = LensName("AF Nikkor 35mm f/2D"), db = LensName("Nikon AF Nikkor 35mm f/2.0D")
        #expect(exif.focal == 35...35 && db.focal == 35...35)
        #expect(exif.aperture?.wide == 2 && db.aperture?.wide == 2)
        #expect(exif.strongWords == db.strongWords)
        #expect(db.maker == "nikon" && exif.maker == nil)
    }

    @Test("F2.8, f2.8, f/2.8 and 1:2.8 are one aperture; Macro 1:2 is not an aperture")
    func apertureForms() {
        for text in ["E 19mm F2.8", "19mm f2.8", "Sigma 19mm f/2.8 EX DN", "19mm 1:2.8"] {
            #expect(LensName(text).aperture?.wide == 2.8, "\(text)")
        }
        let tamron = LensName("Tamron AF 70-300mm f/4-5.6 LD Macro 1:2")
        #expect(tamron.aperture?.wide == 4 && tamron.aperture?.tele == 5.6)
        #expect(tamron.focal == 70...300)
    }

    @Test("focal lengths without mm: Panasonic's 20/F1.7, a bare range, Canon's EF50mm, Olympus's M.12-40mm")
    func focalForms() {
        #expect(LensName("LUMIX G 20/F1.7 II").focal == 20...20)
        #expect(LensName("LUMIX G 20/F1.7 II").aperture?.wide == 1.7)
        #expect(LensName("SIGMA AF 28-300 F3.5-5.6").focal == 28...300)
        #expect(LensName("EF50mm f/1.8 STM").focal == 50...50)
        #expect(LensName("OLYMPUS M.12-40mm F2.8").focal == 12...40)
        #expect(LensName("XF56mmF1.2 R").aperture?.wide == 1.2)
        #expect(LensName("OM 25mm F1,2").aperture?.wide == 1.2)
    }

    @Test("makers by alias and by line words")
    func makers() {
        #expect(LensMaker.canonical("NIKON CORPORATION") == "nikon")
        #expect(LensMaker.canonical("OLYMPUS IMAGING CORP.") == "olympus")
        #expect(LensMaker.canonical("OM Digital Solutions") == "olympus")
        #expect(LensMaker.canonical("Panasonic") == LensMaker.canonical("LUMIX"))
        #expect(LensMaker.canonical("") == nil)
        #expect(LensMaker.signature(LensName("18-250mm F3.5-6.3 DC MACRO OS HSM").words) == "sigma")
        #expect(LensMaker.signature(LensName("E 35mm F1.7").words) == nil)
    }
}
