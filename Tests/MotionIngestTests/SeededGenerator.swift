// The seeded generator (SplitMix64) comes from MotionTestSupport.
@_exported import MotionTestSupport
