// MotionLabels: see README.md in this folder.
