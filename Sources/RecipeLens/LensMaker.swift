/// Lens and camera makers as one spelling each, so that what a file says ("NIKON CORPORATION",
/// "OLYMPUS IMAGING CORP.", "LUMIX") compares with what lensfun's database says ("Nikon",
/// "Olympus", "Panasonic").
///
/// ```swift
/// LensMaker.canonical("NIKON CORPORATION")       // "nikon"
/// LensMaker.canonical("Ricoh Imaging Company, Ltd.")  // "pentax" (Ricoh makes Pentax bodies)
/// LensMaker.named(in: ["sigma", "19mm"])          // "sigma"
/// LensMaker.signature(["dc", "dn"])               // "sigma" (Sigma's line names)
/// ```
enum LensMaker {
    /// Each maker's spellings (in lower case, first word of a file's Make or of a lens name) and
    /// its one name. Ricoh bodies and Asahi are Pentax (the mount and the lenses are); Konica
    /// Minolta and Minolta lenses are the ones Sony's A-mount continued, but their profiles keep
    /// their maker, so they stay apart.
    static let aliases: [String: String] = [
        "nikon": "nikon", "canon": "canon", "sony": "sony", "sigma": "sigma", "tamron": "tamron",
        "tokina": "tokina", "samyang": "samyang", "rokinon": "samyang", "walimex": "samyang",
        "olympus": "olympus", "om": "olympus", "om-system": "olympus", "panasonic": "panasonic", "lumix": "panasonic",
        "leica": "leica", "fujifilm": "fujifilm", "fuji": "fujifilm", "fujinon": "fujifilm",
        "pentax": "pentax", "asahi": "pentax", "ricoh": "pentax", "smc": "pentax", "hd": "pentax",
        "samsung": "samsung", "zeiss": "zeiss", "carl": "zeiss", "minolta": "minolta", "konica": "minolta",
        "voigtlander": "voigtlander", "voigtländer": "voigtlander", "cosina": "voigtlander",
        "meike": "meike", "viltrox": "viltrox", "yongnuo": "yongnuo", "irix": "irix", "laowa": "laowa",
        "mitakon": "mitakon", "hasselblad": "hasselblad", "mamiya": "mamiya", "schneider": "schneider",
        "kodak": "kodak", "casio": "casio", "gopro": "gopro", "dji": "dji", "apple": "apple", "huawei": "huawei",
    ]

    /// Words of a lens's name that only one maker uses for its lines or coatings: a name without
    /// its maker still says whose it is ("18-250mm F3.5-6.3 DC MACRO OS HSM" is a Sigma).
    static let signatures: [String: String] = [
        "nikkor": "nikon", "zuiko": "olympus", "dc": "sigma", "dg": "sigma", "hsm": "sigma", "dn": "sigma", "os": "sigma",
        "di": "tamron", "vc": "tamron", "usd": "tamron", "pzd": "tamron", "rxd": "tamron", "vxd": "tamron", "xr": "tamron",
        "atx": "tokina", "umc": "samyang", "xf": "fujifilm", "xc": "fujifilm", "smc": "pentax",
    ]

    /// The one name of a maker as a file or the database spells it, nil when unknown or empty.
    static func canonical(_ maker: String) -> String? {
        let words = maker.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "." })
        guard let first = words.first else { return nil }
        if first == "om" && words.count > 1 && words[1] == "digital" { return "olympus" }  // "OM Digital Solutions"
        return aliases[String(first)] ?? String(first)
    }

    /// A maker named by a word of a lens's name ("sigma", "lumix", "smc"), the first one.
    static func named(in words: [String]) -> String? {
        for w in words where w != "hd" {
            if let m = aliases[w] { return m }
        }
        return nil
    }

    /// A maker whose line names the words carry (`signatures`), when they point to one maker only.
    static func signature(_ words: [String]) -> String? {
        let makers = Set(words.compactMap { signatures[$0] })
        return makers.count == 1 ? makers.first : nil
    }
}
