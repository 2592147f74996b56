// MotionFeatures: see README.md in this folder.
