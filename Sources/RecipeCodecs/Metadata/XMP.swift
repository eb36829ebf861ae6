/// Checks and patches XMP packets.
public enum XMP {
    /// JPEG APP1 namespace of the main packet.
    public static let jpegNamespace: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// JPEG APP1 namespace of extended-XMP segments.
    public static let jpegExtendedNamespace: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    /// PNG iTXt keyword of the packet.
    public static let pngKeyword = "XML:com.adobe.xmp"

    /// Why `packet` is not a usable XMP packet, or nil. A packet must be UTF-8 and contain an
    /// `x:xmpmeta` or `rdf:RDF` element; anything else is dropped rather than written on.
    public static func problem(in packet: [UInt8]) -> String? {
        guard String(validating: packet, as: UTF8.self) != nil else { return "XMP packet is not valid UTF-8" }
        let hasMeta = contains(packet, "<x:xmpmeta") || contains(packet, "<rdf:RDF")
        return hasMeta ? nil : "XMP packet has no x:xmpmeta or rdf:RDF element"
    }

    /// Sets `tiff:Orientation` to 1 where the packet states another value (attribute or element
    /// form), so an output that was rotated upright does not get rotated again by XMP readers.
    public static func resettingOrientation(_ packet: [UInt8]) -> [UInt8] {
        var out = packet
        for (open, close) in [("tiff:Orientation=\"", "\""), ("<tiff:Orientation>", "<")] {
            let o = Array(open.utf8)
            var i = 0
            while let start = firstIndex(of: o, in: out, from: i) {
                let valueStart = start + o.count
                var j = valueStart
                while j < out.count, out[j] != close.utf8.first! { j += 1 }
                guard j < out.count else { break }
                out.replaceSubrange(valueStart..<j, with: [UInt8(ascii: "1")])
                i = valueStart + 1
            }
        }
        return out
    }

    static func contains(_ hay: [UInt8], _ needle: String) -> Bool {
        firstIndex(of: Array(needle.utf8), in: hay, from: 0) != nil
    }

    static func firstIndex(of needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        var i = from
        let last = hay.count - needle.count
        while i <= last {
            if hay[i] == needle[0] {
                var k = 1
                while k < needle.count && hay[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
