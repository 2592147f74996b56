import Testing

@Test func placeholder_MotionWindowingTests() {}
