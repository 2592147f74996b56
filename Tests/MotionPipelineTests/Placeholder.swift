import Testing

@Test func placeholder_MotionPipelineTests() {}
