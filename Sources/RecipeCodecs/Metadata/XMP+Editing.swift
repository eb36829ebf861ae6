/// Text-level edits of an XMP packet for the export metadata policy: properties removed in
/// attribute form (`exif:GPSLatitude="…"`) and element form (`<exif:GPSLatitude>…</…>`, nested
/// content and all), whatever prefix the packet binds to their namespace; dc:rights and
/// dc:creator set; the credits read back. Every byte not edited stays as it was.
///
/// ```swift
/// let clean = XMP.removing(XMP.locationProperties, from: packet)            // nil: unreadable
/// let credited = clean.flatMap { XMP.settingCredits($0, rights: "© 2026 Zoë", creators: nil) }
/// ```
extension XMP {
    static let rdfNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dcNamespace = "http://purl.org/dc/elements/1.1/"

    /// Properties of one namespace: those named, and those whose name starts with `namePrefix`.
    public struct Properties: Sendable {
        public var namespace: String
        public var names: Set<String>
        public var namePrefix: String?

        public init(namespace: String, names: Set<String> = [], namePrefix: String? = nil) {
            self.namespace = namespace
            self.names = names
            self.namePrefix = namePrefix
        }

        func matches(uri: String?, local: String) -> Bool {
            uri == namespace && (names.contains(local) || namePrefix.map { local.hasPrefix($0) } == true)
        }
    }

    /// Where a photo was taken: every exif:GPS… property, photoshop:City/State/Country, the IPTC
    /// Core location fields and the IPTC Extension's LocationCreated/LocationShown structures
    /// (which hold city, country and coordinates).
    public static let locationProperties = [
        Properties(namespace: "http://ns.adobe.com/exif/1.0/", namePrefix: "GPS"),
        Properties(namespace: "http://ns.adobe.com/photoshop/1.0/", names: ["City", "State", "Country"]),
        Properties(namespace: "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", names: ["Location", "CountryCode", "Sublocation"]),
        Properties(namespace: "http://iptc.org/std/Iptc4xmpExt/2008-02-29/", names: ["LocationCreated", "LocationShown"]),
    ]

    /// Which camera and whose: body and lens serial numbers and the owner's name, in the aux
    /// (Adobe) and exifEX (CIPA) namespaces.
    public static let serialProperties = [
        Properties(namespace: "http://ns.adobe.com/exif/1.0/aux/", names: ["SerialNumber", "LensSerialNumber", "OwnerName"]),
        Properties(namespace: "http://cipa.jp/exif/1.0/", names: ["BodySerialNumber", "LensSerialNumber", "CameraOwnerName"]),
    ]

    /// The main packet's pointer to extended XMP, removed when the extension is dropped.
    static let extendedPointer = Properties(namespace: "http://ns.adobe.com/xmp/note/", names: ["HasExtendedXMP"])

    /// `packet` without `properties`, in attribute or element form wherever they stand; nil when
    /// the packet cannot be scanned.
    public static func removing(_ properties: [Properties], from packet: [UInt8]) -> [UInt8]? {
        guard let scan = XMPScanner(packet) else { return nil }
        func matches(_ uri: String?, _ local: String) -> Bool { properties.contains { $0.matches(uri: uri, local: local) } }
        var cuts: [Range<Int>] = []
        var removedUpTo = 0
        for element in scan.elements where element.start.lowerBound >= removedUpTo {
            if matches(element.uri, element.local) {
                cuts.append(scan.withLeadingWhitespace(element.whole))
                removedUpTo = element.whole.upperBound
                continue
            }
            cuts += element.attributes.filter { matches($0.uri, $0.local) }.map(\.range)
        }
        var out = packet
        for cut in cuts.reversed() { out.removeSubrange(cut) }
        return out
    }

    /// The packet's dc:rights (the x-default alternative, else the first) and dc:creator list.
    public static func credits(in packet: [UInt8]) -> (rights: String?, creators: [String]) {
        guard let scan = XMPScanner(packet) else { return (nil, []) }
        var rights: String?
        var creators: [String] = []
        for element in scan.elements {
            for a in element.attributes where a.uri == dcNamespace {
                if a.local == "rights", rights == nil { rights = scan.text(a.value) }
                if a.local == "creator", creators.isEmpty { creators = [scan.text(a.value)] }
            }
            guard element.uri == dcNamespace, element.local == "rights" || element.local == "creator" else { continue }
            let items = scan.elements.filter {
                $0.uri == rdfNamespace && $0.local == "li" && element.content.contains($0.start.lowerBound) && !$0.isEmpty
                    && !scan.bytes[$0.content].contains(UInt8(ascii: "<"))
            }
            if element.local == "rights", rights == nil {
                let isDefault = { (li: XMPScanner.Element) in li.attributes.contains { $0.qname == "xml:lang" && scan.text($0.value) == "x-default" } }
                rights = (items.first(where: isDefault) ?? items.first).map { scan.text($0.content) }
            } else if element.local == "creator", creators.isEmpty {
                creators = items.map { scan.text($0.content) }
            }
        }
        return (rights.flatMap { $0.isEmpty ? nil : $0 }, creators.filter { !$0.isEmpty })
    }

    /// `packet` with dc:rights set to `rights` (an rdf:Alt with one x-default item) and
    /// dc:creator to `creators` (an rdf:Seq), each replacing what was there and left alone when
    /// nil. They go in as elements of the first rdf:Description (declaring the dc namespace on it
    /// when no prefix for it is in scope). Nil when the packet cannot be scanned or has no
    /// rdf:RDF to put a description in.
    public static func settingCredits(_ packet: [UInt8], rights: String?, creators: [String]?) -> [UInt8]? {
        let replaced = Properties(namespace: dcNamespace, names: Set((rights == nil ? [] : ["rights"]) + (creators == nil ? [] : ["creator"])))
        guard var out = removing([replaced], from: packet), let scan = XMPScanner(out) else { return nil }
        guard let description = scan.elements.first(where: { $0.uri == rdfNamespace && $0.local == "Description" }) else {
            // No description yet: add an empty one to rdf:RDF, then fill it.
            guard let rdf = scan.elements.first(where: { $0.uri == rdfNamespace && $0.local == "RDF" && !$0.isEmpty }) else { return nil }
            let p = rdf.prefix.isEmpty ? "" : rdf.prefix + ":"
            let indent = scan.indentation(before: rdf.start.lowerBound)
            out.insert(contentsOf: Array("\n\(indent) <\(p)Description \(p)about=\"\"/>".utf8), at: rdf.start.upperBound)
            return settingCredits(out, rights: rights, creators: creators)
        }
        let bound = description.scope.filter { $0.value == dcNamespace && !$0.key.isEmpty }.keys
        let existing = bound.contains("dc") ? "dc" : bound.sorted().first
        let dc = existing ?? (description.scope["dc"] == nil ? "dc" : "dc\((2...).first { description.scope["dc\($0)"] == nil }!)")
        let r = description.prefix.isEmpty ? "" : description.prefix + ":"
        let indent = scan.indentation(before: description.start.lowerBound)
        let i1 = indent + " ", i2 = indent + "  ", i3 = indent + "   "
        var content = ""
        if let creators {
            content += "\n\(i1)<\(dc):creator>\n\(i2)<\(r)Seq>"
            for creator in creators { content += "\n\(i3)<\(r)li>\(escaped(creator))</\(r)li>" }
            content += "\n\(i2)</\(r)Seq>\n\(i1)</\(dc):creator>"
        }
        if let rights {
            content += "\n\(i1)<\(dc):rights>\n\(i2)<\(r)Alt>\n\(i3)<\(r)li xml:lang=\"x-default\">\(escaped(rights))</\(r)li>"
            content += "\n\(i2)</\(r)Alt>\n\(i1)</\(dc):rights>"
        }
        if description.isEmpty {
            let slash = description.start.upperBound - 2
            out.replaceSubrange(slash..<description.start.upperBound, with: Array(">\(content)\n\(indent)</\(description.qname)>".utf8))
        } else {
            out.insert(contentsOf: Array(content.utf8), at: description.start.upperBound)
        }
        if existing == nil {
            out.insert(contentsOf: Array(" xmlns:\(dc)=\"\(dcNamespace)\"".utf8), at: description.start.lowerBound + 1 + description.qname.utf8.count)
        }
        return out
    }

    /// A new packet holding only dc:rights and dc:creator (those not nil).
    public static func minimalPacket(rights: String?, creators: [String]?) -> [UInt8] {
        let shell = """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="\(rdfNamespace)">
              <rdf:Description rdf:about=""/>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
        return settingCredits(Array(shell.utf8), rights: rights, creators: creators)!
    }

    /// The five characters XML reserves and their entities' names.
    static let reserved: [(character: Character, entity: String)] = [("&", "amp"), ("<", "lt"), (">", "gt"), ("\"", "quot"), ("'", "apos")]

    /// `text` with the five characters XML reserves written as entities.
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            if let entity = reserved.first(where: { $0.character == c })?.entity { out += "&\(entity);" } else { out.append(c) }
        }
        return out
    }
}
