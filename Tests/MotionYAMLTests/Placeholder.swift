import Testing

@Test func placeholder_MotionYAMLTests() {}
