/// Floats at an address that stays put while the object lives: what a point pass's tiles read
/// through a plain pointer (a matrix's 12 floats, `PointProgram.ReadyRun`), with no reference
/// count taken a tile.
final class PinnedFloats: @unchecked Sendable {
    // @unchecked: the floats are written once, in init, and only read after.
    let base: UnsafeMutablePointer<Float>
    let count: Int

    init(_ values: [Float]) {
        count = values.count
        base = .allocate(capacity: max(1, values.count))
        base.initialize(from: values, count: values.count)
    }

    deinit { base.deallocate() }
}
