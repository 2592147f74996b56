import Testing

@Test func placeholder_MotionprepCLITests() {}
