// MotionSinks: see README.md in this folder.
