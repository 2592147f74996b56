// MotionPipeline: see README.md in this folder.
