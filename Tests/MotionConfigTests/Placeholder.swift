import Testing

@Test func placeholder_MotionConfigTests() {}
