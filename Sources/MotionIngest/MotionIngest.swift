// MotionIngest: see README.md in this folder.
