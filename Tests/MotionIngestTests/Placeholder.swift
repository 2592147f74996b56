import Testing

@Test func placeholder_MotionIngestTests() {}
