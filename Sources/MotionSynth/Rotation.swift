import Foundation

/// A 3×3 rotation matrix stored by rows; maps body-frame vectors into the parent frame.
struct Rotation: Sendable {
    var r0: SIMD3<Double>, r1: SIMD3<Double>, r2: SIMD3<Double>

    static let identity = Rotation(r0: [1, 0, 0], r1: [0, 1, 0], r2: [0, 0, 1])

    /// Rotation by `angle` radians about x (right-handed).
    static func aboutX(_ angle: Double) -> Rotation {
        let c = cos(angle), s = sin(angle)
        return Rotation(r0: [1, 0, 0], r1: [0, c, -s], r2: [0, s, c])
    }

    /// Rotation by `angle` radians about y.
    static func aboutY(_ angle: Double) -> Rotation {
        let c = cos(angle), s = sin(angle)
        return Rotation(r0: [c, 0, s], r1: [0, 1, 0], r2: [-s, 0, c])
    }

    /// Rotation by `angle` radians about z.
    static func aboutZ(_ angle: Double) -> Rotation {
        let c = cos(angle), s = sin(angle)
        return Rotation(r0: [c, -s, 0], r1: [s, c, 0], r2: [0, 0, 1])
    }

    /// Rz(z) · Ry(y) · Rx(x) for small angles (|angle| < 0.3 rad), with sine and cosine from
    /// their Taylor series (error below 1e-15), which is much cheaper than libm here.
    static func small(x: Double, y: Double, z: Double) -> Rotation {
        let (sx, cx) = smallSinCos(x), (sy, cy) = smallSinCos(y), (sz, cz) = smallSinCos(z)
        // Rz · Ry · Rx written out.
        return Rotation(r0: [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx],
                        r1: [sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx],
                        r2: [-sy, cy * sx, cy * cx])
    }

    /// (sin x, cos x) by Taylor series; precondition: |x| < 0.3.
    @inline(__always)
    static func smallSinCos(_ x: Double) -> (sin: Double, cos: Double) {
        precondition(abs(x) < 0.3, "Rotation.small: angle \(x) is not small")
        let x2 = x * x
        let s = x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110)))))
        let c = 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56 * (1 - x2 / 90 * (1 - x2 / 132)))))
        return (s, c)
    }

    /// Core Motion's Euler convention: R = Rz(yaw) · Rx(pitch) · Ry(roll).
    static func attitude(pitch: Double, roll: Double, yaw: Double) -> Rotation {
        aboutZ(yaw) * aboutX(pitch) * aboutY(roll)
    }

    /// The (pitch, roll, yaw) with `attitude(pitch:roll:yaw:) == self`; pitch in [−π/2, π/2].
    var eulerAngles: (pitch: Double, roll: Double, yaw: Double) {
        let pitch = asin(Swift.max(-1, Swift.min(1, r2.y)))
        let roll = atan2(-r2.x, r2.z)
        let yaw = atan2(-r0.y, r1.y)
        return (pitch, roll, yaw)
    }

    /// self · v.
    @inline(__always)
    func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((r0 * v).sum(), (r1 * v).sum(), (r2 * v).sum())
    }

    /// selfᵀ · v (the inverse rotation).
    @inline(__always)
    func applyTransposed(_ v: SIMD3<Double>) -> SIMD3<Double> {
        r0 * v.x + r1 * v.y + r2 * v.z
    }

    static func * (a: Rotation, b: Rotation) -> Rotation {
        // Row i of a·b = Σ_k a[i][k] · row k of b.
        Rotation(r0: b.r0 * a.r0.x + b.r1 * a.r0.y + b.r2 * a.r0.z,
                 r1: b.r0 * a.r1.x + b.r1 * a.r1.y + b.r2 * a.r1.z,
                 r2: b.r0 * a.r2.x + b.r1 * a.r2.y + b.r2 * a.r2.z)
    }
}
