internal import CLCMS2

/// The Little CMS the colour transforms run on, for `recipe --version`.
///
///     LittleCMS.version   // "2.14"
public enum LittleCMS {
    /// lcms2's version at run time (`cmsGetEncodedCMMversion`: 2140 for 2.14; a patch level, when
    /// not 0, as a third number).
    public static var version: String {
        let encoded = Int(cmsGetEncodedCMMversion())
        let major = encoded / 1000, minor = encoded % 1000 / 10, patch = encoded % 10
        return patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }
}
