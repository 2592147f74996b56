import Testing

@Test func placeholder_MotionResampleTests() {}
