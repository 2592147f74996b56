import Testing

@Test func placeholder_MotionSinksTests() {}
