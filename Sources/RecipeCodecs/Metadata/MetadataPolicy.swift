import RecipeCore

/// What an export writes of a photo's metadata, as a photo editor's export dialog offers it: all
/// of it, all but where and with which camera, only the copyright, or nothing; and the copyright
/// and creator to write.
///
/// ```swift
/// var policy = MetadataPolicy(keep: .all, stripLocation: true, stripSerials: true)
/// policy.copyright = "© 2026 Zoë Ångström"
/// let written = decoder.info.metadata.applying(policy)   // then prepared(forOutputWidth:height:)
/// ```
public struct MetadataPolicy: Sendable, Equatable {
    /// Which blocks an export keeps.
    public enum Keep: String, Sendable, CaseIterable {
        /// Every block, less what `stripLocation` and `stripSerials` remove.
        case all
        /// Only the copyright and the creator, in EXIF IFD0, a new XMP packet and IPTC.
        case copyright
        /// No EXIF, XMP, IPTC, comments or PNG text (but the copyright and creator set here).
        case none
    }

    /// Which blocks are kept.
    public var keep: Keep = .all
    /// Remove GPS and place names: the EXIF GPS IFD, XMP exif:GPS… and location properties, IPTC
    /// city, sub-location, province/state and country.
    public var stripLocation = false
    /// Remove camera and lens serial numbers, the owner's name and the maker notes (which hold
    /// serial numbers too).
    public var stripSerials = false
    /// Written, replacing what was there, as EXIF Copyright (0x8298), XMP dc:rights and IPTC
    /// 2:116. Nil or empty: left as it is.
    public var copyright: String?
    /// Written, replacing what was there, as EXIF Artist (0x013B), XMP dc:creator and IPTC 2:80.
    /// Nil or empty: left as it is.
    public var creator: String?

    public init(keep: Keep = .all, stripLocation: Bool = false, stripSerials: Bool = false, copyright: String? = nil, creator: String? = nil) {
        self.keep = keep
        self.stripLocation = stripLocation
        self.stripSerials = stripSerials
        self.copyright = copyright
        self.creator = creator
    }

    /// Whether the policy writes the metadata as it is.
    public var isIdentity: Bool { keep == .all && !stripLocation && !stripSerials && newCopyright == nil && newCreator == nil }

    var newCopyright: String? { copyright.flatMap { $0.isEmpty ? nil : $0 } }
    var newCreator: String? { creator.flatMap { $0.isEmpty ? nil : $0 } }
}

extension ImageMetadata {
    /// The metadata an export writes under `policy`. Colour (icc, png gamma/sRGB/chromaticities,
    /// cicp) is always kept: it is not metadata about the photographer but how to read the pixels.
    /// A block that cannot be read well enough to edit (damaged EXIF, an XMP packet that does not
    /// scan, Photoshop resources that do not parse) is dropped under any policy but the identity,
    /// never passed on unfiltered.
    public func applying(_ policy: MetadataPolicy) -> ImageMetadata {
        if policy.isIdentity { return self }
        var out = ImageMetadata()
        out.icc = icc
        out.pngGamma = pngGamma
        out.pngSRGBIntent = pngSRGBIntent
        out.pngChromaticities = pngChromaticities
        out.cicp = cicp
        out.orientation = orientation
        out.exif = policyEXIF(policy)
        (out.xmp, out.extendedXMP) = policyXMP(policy)
        out.iptc = policyIPTC(policy)
        out.comments = policy.keep == .all ? comments : []
        out.pngText = policyPNGText(policy)
        return out
    }

    private func policyEXIF(_ policy: MetadataPolicy) -> [UInt8]? {
        let original = exif.flatMap(EXIF.init)
        var texts = [(EXIF.copyrightTag, policy.newCopyright), (EXIF.artistTag, policy.newCreator)].compactMap { tag, text in
            text.map { (tag: tag, text: Array($0.utf8)) }
        }
        switch policy.keep {
        case .all:
            guard var edited = original else { return texts.isEmpty ? nil : EXIF.textsOnly(texts, original: nil) }
            if policy.stripLocation { edited.removeLocation() }
            if policy.stripSerials { edited.removeSerials() }
            if !texts.isEmpty { edited.setText(texts) }
            // An edit of a block whose values overlap its structure may break it: drop it then.
            if EXIF(edited.bytes) != nil { return edited.bytes }
            return texts.isEmpty ? nil : EXIF.textsOnly(texts, original: nil)
        case .copyright:
            for tag in [EXIF.copyrightTag, EXIF.artistTag] where !texts.contains(where: { $0.tag == tag }) {
                if let text = original?.text(tag: tag) { texts.append((tag, text)) }
            }
            return texts.isEmpty ? nil : EXIF.textsOnly(texts, original: original)
        case .none:
            return texts.isEmpty ? nil : EXIF.textsOnly(texts, original: original)
        }
    }

    private func policyXMP(_ policy: MetadataPolicy) -> (xmp: [UInt8]?, extended: [[UInt8]]) {
        let setCreators = policy.newCreator.map { [$0] }
        let anySet = policy.newCopyright != nil || setCreators != nil
        let fresh = anySet ? XMP.minimalPacket(rights: policy.newCopyright, creators: setCreators) : nil
        switch policy.keep {
        case .all:
            guard let packet = xmp else { return (fresh, []) }
            var removed = (policy.stripLocation ? XMP.locationProperties : []) + (policy.stripSerials ? XMP.serialProperties : [])
            var extended = extendedXMP
            if !removed.isEmpty, !extended.isEmpty, !Self.extendedXMPIsFree(extended, of: removed) {
                extended = []
                removed.append(XMP.extendedPointer)
            }
            var edited = removed.isEmpty ? packet : XMP.removing(removed, from: packet)
            if anySet { edited = edited.flatMap { XMP.settingCredits($0, rights: policy.newCopyright, creators: setCreators) } }
            guard let edited else { return (fresh, []) }
            return (edited, extended)
        case .copyright:
            let inXMP = xmp.map(XMP.credits) ?? (rights: nil, creators: [])
            let original = exif.flatMap(EXIF.init)
            let sets = iptcDataSets ?? []
            let rights = policy.newCopyright ?? inXMP.rights ?? original?.text(tag: EXIF.copyrightTag).flatMap(Self.firstText)
                ?? IIM.texts(IIM.copyrightNotice, in: sets).first
            let creatorsFound = [inXMP.creators, original?.text(tag: EXIF.artistTag).flatMap(Self.firstText).map { [$0] } ?? [],
                                 IIM.texts(IIM.byline, in: sets)].first { !$0.isEmpty }
            let creators = setCreators ?? creatorsFound
            return (rights == nil && creators == nil ? nil : XMP.minimalPacket(rights: rights, creators: creators), [])
        case .none:
            return (fresh, [])
        }
    }

    /// Whether the extended XMP (its segments put together in offset order) holds none of
    /// `properties`; false when it cannot be put together or scanned.
    private static func extendedXMPIsFree(_ segments: [[UInt8]], of properties: [XMP.Properties]) -> Bool {
        // Each segment: a 32-byte GUID, the full length and this part's offset (4 bytes each).
        guard segments.allSatisfy({ $0.count >= 40 }) else { return false }
        let ordered = segments.sorted { $0[36..<40].reduce(0) { $0 << 8 | Int($1) } < $1[36..<40].reduce(0) { $0 << 8 | Int($1) } }
        let whole = Array(ordered.map { $0[40...] }.joined())
        return XMP.removing(properties, from: whole) == whole
    }

    /// The first non-blank NUL-separated part of an EXIF text (Copyright holds the
    /// photographer's and the editor's, NUL between), as UTF-8 or else Latin-1.
    private static func firstText(_ bytes: [UInt8]) -> String? {
        bytes.split(separator: 0).map { IIM.text(Array($0)).trimmingSpaces }.first { !$0.isEmpty }
    }

    /// The IIM datasets of the APP13 block, nil when there are none or it does not parse.
    private var iptcDataSets: [IIM.DataSet]? {
        iptcBlocks?.first { $0.id == PhotoshopResources.iptcResource }.map { IIM.dataSets(in: $0.data) }
    }

    private var iptcBlocks: [PhotoshopResources.Block]? {
        iptc.flatMap(PhotoshopResources.resources(fromAPP13:)).flatMap(PhotoshopResources.blocks(in:))
    }

    private func policyIPTC(_ policy: MetadataPolicy) -> [UInt8]? {
        let creators = policy.newCreator.map { [$0] }
        let anySet = policy.newCopyright != nil || creators != nil
        func credited(_ sets: [IIM.DataSet]) -> [IIM.DataSet] {
            anySet ? IIM.settingCredits(sets, copyright: policy.newCopyright, creators: creators) : sets
        }
        let fresh = anySet ? PhotoshopResources.app13(iim: IIM.bytes(of: credited([]))) : nil
        switch policy.keep {
        case .all:
            guard iptc != nil else { return fresh }
            guard let original = iptcBlocks else { return fresh }
            var blocks = original
            if policy.stripLocation || policy.stripSerials {
                // Photoshop's copies of EXIF (0x0422, 0x0423) and XMP (0x0424) would carry on
                // what was stripped from the blocks themselves.
                blocks.removeAll { (0x0422...0x0424).contains($0.id) }
            }
            if anySet && !blocks.contains(where: { $0.id == PhotoshopResources.iptcResource }) {
                blocks.append(PhotoshopResources.Block(id: PhotoshopResources.iptcResource, data: []))
            }
            var iimChanged = false
            for i in blocks.indices where blocks[i].id == PhotoshopResources.iptcResource {
                let before = IIM.dataSets(in: blocks[i].data)
                var sets = before
                if policy.stripLocation { sets.removeAll { $0.record == 2 && IIM.locationDataSets.contains($0.number) } }
                sets = credited(sets)
                if sets != before || blocks[i].data.isEmpty {
                    blocks[i].data = IIM.bytes(of: sets)
                    iimChanged = true
                }
            }
            // The digest of the IIM that Photoshop keeps (0x0425) would no longer match.
            if iimChanged { blocks.removeAll { $0.id == 0x0425 } }
            return blocks == original ? iptc : PhotoshopResources.app13(resources: PhotoshopResources.bytes(of: blocks))
        case .copyright:
            // The character set, the record version and the credits.
            let credits = (iptcDataSets ?? []).filter {
                ($0.record == 1 && $0.number == 90) || ($0.record == 2 && [0, IIM.byline, IIM.copyrightNotice].contains($0.number))
            }
            let kept = credited(credits)
            guard kept.contains(where: { $0.record == 2 && ($0.number == IIM.byline || $0.number == IIM.copyrightNotice) }) else { return nil }
            return PhotoshopResources.app13(iim: IIM.bytes(of: kept))
        case .none:
            return nil
        }
    }

    /// PNG text: kept under `.all` (less ImageMagick's hex copies of EXIF, IPTC and XMP when
    /// stripping), only Copyright and Author under `.copyright`; those two take the policy's
    /// values when it sets them.
    private func policyPNGText(_ policy: MetadataPolicy) -> [PNGText] {
        let kept: [PNGText] = switch policy.keep {
        case .all: pngText.filter { !(policy.stripLocation || policy.stripSerials) || !$0.keyword.hasPrefix("Raw profile type") }
        case .copyright: pngText.filter { $0.keyword == "Copyright" || $0.keyword == "Author" }
        case .none: []
        }
        return kept.map { t in
            guard let value = t.keyword == "Copyright" ? policy.newCopyright : t.keyword == "Author" ? policy.newCreator : nil else { return t }
            return PNGText(keyword: t.keyword, text: Array(value.utf8), international: value.utf8.contains { $0 >= 0x80 })
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
